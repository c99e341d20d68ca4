#include "gui/picture_cell.hpp"

#include <string>

#include <QtGui/QPainter>

#include "gui/palette.hpp"

namespace hdstream {

QPixmap picture_cell(const QImage* thumbnail, const FeedRow& row) {
  QPixmap cell(kPictureCellWidth, kPictureCellHeight);
  cell.fill(Qt::black);
  QPainter painter(&cell);
  const QRect area(0, 0, kPictureCellWidth, kPictureCellHeight);
  QFont font = painter.font();
  font.setBold(true);
  font.setPixelSize(12);
  painter.setFont(font);

  if (row.no_signal || !thumbnail || thumbnail->isNull()) {
    painter.fillRect(area, QColor(panel_colors::kSurface));
    painter.setPen(QPen(QColor(panel_colors::kBad), 2));
    painter.drawRect(area.adjusted(1, 1, -1, -1));
    painter.drawText(area, Qt::AlignCenter, "NO SIGNAL");
    return cell;
  }
  // The thumbnail is already fitted to the picture's aspect: centred, not stretched.
  const QImage fitted =
      thumbnail->width() > kPictureCellWidth || thumbnail->height() > kPictureCellHeight
          ? thumbnail->scaled(area.size(), Qt::KeepAspectRatio, Qt::SmoothTransformation)
          : *thumbnail;
  painter.drawImage(
      QPoint((kPictureCellWidth - fitted.width()) / 2, (kPictureCellHeight - fitted.height()) / 2),
      fitted);
  std::string alarms;
  if (row.frozen) alarms = "FROZEN";
  if (row.black) alarms += alarms.empty() ? "BLACK" : " BLACK";
  if (!alarms.empty()) {
    const QColor amber(panel_colors::kWarn);
    painter.setPen(QPen(amber, 3));
    painter.drawRect(area.adjusted(1, 1, -2, -2));
    const QRect band(0, kPictureCellHeight - 18, kPictureCellWidth, 18);
    painter.fillRect(band, QColor(0, 0, 0, 190));
    painter.setPen(amber);
    painter.drawText(band, Qt::AlignCenter, QString::fromStdString(alarms));
  }
  return cell;
}

}  // namespace hdstream
