#include "report/chart.hpp"

#include <QImage>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cstdlib>

#include "report/offscreen_gui.hpp"

namespace hdstream {
namespace {

QColor color_of(std::uint32_t rgb) {
  return QColor((rgb >> 16) & 0xff, (rgb >> 8) & 0xff, rgb & 0xff);
}

}  // namespace

std::vector<std::byte> render_chart_png(const Chart& chart, int width, int height) {
  auto app = ensure_gui_application();
  const int left = 80, right = 20, top = 40, bottom = 46;
  QImage image(width, height, QImage::Format_RGB32);
  image.fill(Qt::white);
  QPainter painter(&image);
  painter.setRenderHint(QPainter::Antialiasing);

  double t_max = 1, y_max = 0;
  for (const auto& series : chart.series) {
    for (const auto& [t, v] : series.points) {
      t_max = std::max(t_max, t);
      y_max = std::max(y_max, v);
    }
  }
  y_max = y_max > 0 ? y_max * 1.15 : 1;
  const QRectF area(left, top, width - left - right, height - top - bottom);
  auto x_of = [&](double t) { return area.left() + t / t_max * area.width(); };
  auto y_of = [&](double v) { return area.bottom() - v / y_max * area.height(); };

  for (const auto& [t0, t1] : chart.shaded) {
    painter.fillRect(QRectF(QPointF(x_of(t0), area.top()), QPointF(x_of(t1), area.bottom())),
                     QColor(255, 215, 215));
  }
  QFont font = painter.font();
  font.setPixelSize(12);
  painter.setFont(font);
  for (int i = 0; i <= 4; ++i) {
    const double v = y_max * i / 4;
    painter.setPen(QPen(QColor(225, 225, 225), 1));
    painter.drawLine(QPointF(area.left(), y_of(v)), QPointF(area.right(), y_of(v)));
    painter.setPen(Qt::black);
    painter.drawText(QRectF(0, y_of(v) - 8, left - 8, 16), Qt::AlignRight | Qt::AlignVCenter,
                     QString::number(v, 'g', 4));
  }
  for (int i = 0; i <= 6; ++i) {
    const double t = t_max * i / 6;
    painter.drawText(QRectF(x_of(t) - 30, area.bottom() + 6, 60, 16), Qt::AlignCenter,
                     QString::number(t, 'f', 0));
  }
  painter.drawText(QRectF(0, height - 20, width, 18), Qt::AlignCenter, "time (s)");
  painter.save();
  painter.translate(16, area.center().y());
  painter.rotate(-90);
  painter.drawText(QRectF(-100, -10, 200, 20), Qt::AlignCenter,
                   QString::fromStdString(chart.y_label));
  painter.restore();
  painter.setPen(QPen(QColor(90, 90, 90), 1, Qt::DotLine));
  for (double t : chart.dividers) {
    painter.drawLine(QPointF(x_of(t), area.top()), QPointF(x_of(t), area.bottom()));
  }
  painter.setPen(Qt::black);
  painter.drawRect(area);

  QString legend = QString::fromStdString(chart.title) + ":";
  for (const auto& series : chart.series) {
    const QColor color = color_of(series.rgb);
    if (series.style == ChartSeries::Style::bars) {
      const double bar = std::max(1.0, area.width() / t_max * 0.8);
      for (const auto& [t, v] : series.points) {
        if (v <= 0) continue;
        painter.fillRect(QRectF(QPointF(x_of(t), y_of(v)), QPointF(x_of(t) + bar, area.bottom())),
                         color);
      }
    } else {
      QPainterPath path;
      for (std::size_t i = 0; i < series.points.size(); ++i) {
        const QPointF p(x_of(series.points[i].first), y_of(series.points[i].second));
        i == 0 ? path.moveTo(p) : path.lineTo(p);
      }
      painter.setPen(QPen(
          color, 2, series.style == ChartSeries::Style::dashed ? Qt::DashLine : Qt::SolidLine));
      painter.drawPath(path);
    }
    legend += QString(" %1 (%2)").arg(QString::fromStdString(series.name), color.name());
  }
  painter.setPen(Qt::black);
  painter.drawText(QRectF(left, 8, area.width(), 24), Qt::AlignLeft | Qt::AlignVCenter, legend);
  painter.end();

  return png_bytes(image);
}

}  // namespace hdstream
