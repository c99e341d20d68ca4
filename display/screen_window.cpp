#include "display/screen_window.hpp"

#include <QtGui/QPainter>
#include <QtGui/QScreen>

#include "display/repaint.hpp"

namespace hdstream {

ScreenWindow::ScreenWindow(QScreen* screen, std::shared_ptr<FeedView> view)
    : PlacedWindow(screen, QString("hdstream feed %1").arg(view->stream())),
      view_(std::move(view)) {
  view_->attach(repaint_request(this));
}

ScreenWindow::~ScreenWindow() {
  view_->detach();
}

void ScreenWindow::resizeEvent(QResizeEvent*) {
  const qreal ratio = devicePixelRatio();
  view_->set_area(static_cast<int>(width() * ratio), static_cast<int>(height() * ratio));
}

void ScreenWindow::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  painter.fillRect(QRect(QPoint(0, 0), size()), Qt::black);
  const FeedView::Latest latest = view_->latest();
  if (latest.image.isNull()) {
    painter.setPen(QColor(0x60, 0x60, 0x60));
    painter.drawText(QRect(QPoint(0, 0), size()), Qt::AlignCenter,
                     QString("hdstream · waiting for feed %1").arg(view_->stream()));
    return;
  }
  // The image is already fitted to this window (in device pixels): centre it, unscaled.
  QImage image = latest.image;
  image.setDevicePixelRatio(devicePixelRatio());
  const QSizeF shown = image.deviceIndependentSize();
  painter.drawImage(QPointF((width() - shown.width()) / 2, (height() - shown.height()) / 2), image);
}

}  // namespace hdstream
