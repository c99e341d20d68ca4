#include "report/throughput_plot.hpp"

#include <QImage>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cstdlib>
#include <memory>

#include "report/offscreen_gui.hpp"

namespace hdstream {
namespace {

const QColor kFeedColors[] = {QColor(31, 119, 180),  QColor(255, 127, 14),  QColor(44, 160, 44),
                              QColor(214, 39, 40),   QColor(148, 103, 189), QColor(140, 86, 75),
                              QColor(227, 119, 194), QColor(127, 127, 127)};

}  // namespace

std::vector<std::byte> render_throughput_png(const std::vector<ThroughputPoint>& series,
                                             double planned_mbps) {
  auto app = ensure_gui_application();
  constexpr int kWidth = 960, kHeight = 480, kLeft = 80, kRight = 20, kTop = 40, kBottom = 50;
  QImage image(kWidth, kHeight, QImage::Format_RGB32);
  image.fill(Qt::white);
  QPainter painter(&image);
  painter.setRenderHint(QPainter::Antialiasing);

  double t_max = 1, y_max = std::max(planned_mbps, 1.0);
  for (const auto& p : series) {
    t_max = std::max(t_max, p.t);
    y_max = std::max(y_max, p.aggregate_mbps);
  }
  y_max *= 1.15;
  const QRectF area(kLeft, kTop, kWidth - kLeft - kRight, kHeight - kTop - kBottom);
  auto to_point = [&](double t, double mbps) {
    return QPointF(area.left() + t / t_max * area.width(),
                   area.bottom() - mbps / y_max * area.height());
  };

  painter.setPen(QPen(QColor(220, 220, 220), 1));
  QFont font = painter.font();
  font.setPixelSize(12);
  painter.setFont(font);
  for (int i = 0; i <= 5; ++i) {
    const double mbps = y_max * i / 5;
    const QPointF left = to_point(0, mbps);
    painter.setPen(QPen(QColor(225, 225, 225), 1));
    painter.drawLine(left, to_point(t_max, mbps));
    painter.setPen(Qt::black);
    painter.drawText(QRectF(0, left.y() - 8, kLeft - 8, 16), Qt::AlignRight | Qt::AlignVCenter,
                     QString::number(mbps, 'f', 0));
  }
  for (int i = 0; i <= 6; ++i) {
    const double t = t_max * i / 6;
    const QPointF bottom = to_point(t, 0);
    painter.drawText(QRectF(bottom.x() - 30, area.bottom() + 6, 60, 16), Qt::AlignCenter,
                     QString::number(t, 'f', 1));
  }
  painter.drawText(QRectF(0, kHeight - 22, kWidth, 18), Qt::AlignCenter, "time (s)");
  painter.save();
  painter.translate(16, area.center().y());
  painter.rotate(-90);
  painter.drawText(QRectF(-100, -10, 200, 20), Qt::AlignCenter, "Mbps");
  painter.restore();
  painter.drawRect(area);

  if (planned_mbps > 0) {
    painter.setPen(QPen(QColor(120, 120, 120), 1.5, Qt::DashLine));
    painter.drawLine(to_point(0, planned_mbps), to_point(t_max, planned_mbps));
  }
  const std::size_t feeds = series.empty() ? 0 : series.front().stream_mbps.size();
  for (std::size_t feed = 0; feed < feeds; ++feed) {
    QPainterPath path;
    for (std::size_t i = 0; i < series.size(); ++i) {
      const double mbps = feed < series[i].stream_mbps.size() ? series[i].stream_mbps[feed] : 0;
      i == 0 ? path.moveTo(to_point(series[i].t, mbps)) : path.lineTo(to_point(series[i].t, mbps));
    }
    painter.setPen(QPen(kFeedColors[feed % std::size(kFeedColors)], 1.2));
    painter.drawPath(path);
  }
  QPainterPath aggregate;
  for (std::size_t i = 0; i < series.size(); ++i) {
    const QPointF point = to_point(series[i].t, series[i].aggregate_mbps);
    i == 0 ? aggregate.moveTo(point) : aggregate.lineTo(point);
  }
  painter.setPen(QPen(Qt::black, 2.5));
  painter.drawPath(aggregate);
  painter.drawText(QRectF(kLeft, 8, area.width(), 24), Qt::AlignLeft | Qt::AlignVCenter,
                   QString("Throughput: aggregate (black), per feed (colours), planned (dashed)"));
  painter.end();

  return png_bytes(image);
}

}  // namespace hdstream
