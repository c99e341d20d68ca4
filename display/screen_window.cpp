#include "display/screen_window.hpp"

#include <QtGui/QPainter>
#include <QtGui/QScreen>

#include "display/repaint.hpp"

namespace hdstream {

ScreenWindow::ScreenWindow(QScreen* screen, std::shared_ptr<FeedView> view)
    : view_(std::move(view)) {
  setScreen(screen);
  setFlags(Qt::Window | Qt::FramelessWindowHint | Qt::WindowStaysOnTopHint);
  setTitle(QString("hdstream feed %1").arg(view_->stream()));
  setGeometry(screen->geometry());
  view_->attach(repaint_request(this));
}

ScreenWindow::~ScreenWindow() {
  view_->detach();
}

void ScreenWindow::show_on_screen() {
  setGeometry(screen()->geometry());
  showFullScreen();
}

void ScreenWindow::show_in(Rect area) {
  setFlags(Qt::Window);
  setGeometry(area.x, area.y, area.width, area.height);
  show();
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
