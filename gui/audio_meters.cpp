#include "gui/audio_meters.hpp"

#include <algorithm>
#include <cmath>

#include "gui/palette.hpp"

namespace hdstream {
namespace {

constexpr int kPairGap = 2;

// The bar from `from_db` to `to_db` along `track`, each zone in its colour (`lighter` for the
// part beyond the RMS).
void fill_zones(QPainter& painter, const QRect& track, Qt::Orientation orientation, double from_db,
                double to_db, bool lighter) {
  const bool vertical = orientation == Qt::Vertical;
  const int length = vertical ? track.height() : track.width();
  const double zones[][2] = {{kMeterFloorDbfs, kMeterAlignmentDbfs},
                             {kMeterAlignmentDbfs, kMeterHighDbfs},
                             {kMeterHighDbfs, 0.0}};
  for (const auto& zone : zones) {
    const double low = std::max(from_db, zone[0]);
    const double high = std::min(to_db, zone[1]);
    if (high <= low) continue;
    const int start = meter_extent(low, length);
    const int end = meter_extent(high, length);
    if (end <= start) continue;
    QColor color = meter_color((zone[0] + zone[1]) / 2);
    if (lighter) color.setAlpha(110);
    const QRect part = vertical
                           ? QRect(track.x(), track.bottom() + 1 - end, track.width(), end - start)
                           : QRect(track.x() + start, track.y(), end - start, track.height());
    painter.fillRect(part, color);
  }
}

}  // namespace

int meter_extent(double dbfs, int length) {
  if (!(dbfs > kMeterFloorDbfs)) return 0;  // NaN and -inf too
  if (dbfs >= 0) return length;
  return static_cast<int>(std::lround((dbfs - kMeterFloorDbfs) / -kMeterFloorDbfs * length));
}

QColor meter_color(double dbfs) {
  if (dbfs <= kMeterAlignmentDbfs) return QColor(panel_colors::kGood);
  if (dbfs <= kMeterHighDbfs) return QColor(panel_colors::kWarn);
  return QColor(panel_colors::kBad);
}

void paint_audio_meters(QPainter& painter, const QRect& area, const SoundLevels& levels,
                        Qt::Orientation orientation) {
  const int pairs = static_cast<int>(levels.pairs.size());
  if (pairs == 0 || area.isEmpty()) return;
  const bool vertical = orientation == Qt::Vertical;
  painter.fillRect(area, QColor(0, 0, 0, 200));
  const int across = (vertical ? area.width() : area.height()) - kPairGap * (pairs + 1);
  const int bar = std::max(1, across / pairs);
  for (int i = 0; i < pairs; ++i) {
    const PairLevels& pair = levels.pairs[static_cast<std::size_t>(i)];
    const int offset = kPairGap + i * (bar + kPairGap);
    const QRect track =
        vertical ? QRect(area.x() + offset, area.y() + kPairGap, bar, area.height() - 2 * kPairGap)
                 : QRect(area.x() + kPairGap, area.y() + offset, area.width() - 2 * kPairGap, bar);
    painter.fillRect(track, QColor(panel_colors::kSurface));
    const double rms = std::min(pair.rms_dbfs, pair.peak_dbfs);
    fill_zones(painter, track, orientation, kMeterFloorDbfs, rms, /*lighter=*/false);
    fill_zones(painter, track, orientation, rms, pair.peak_dbfs, /*lighter=*/true);
    if (pair.hold_dbfs > kMeterFloorDbfs) {
      const int length = vertical ? track.height() : track.width();
      const int at = std::clamp(meter_extent(pair.hold_dbfs, length), 2, length);
      const QRect tick = vertical ? QRect(track.x(), track.bottom() + 1 - at, track.width(), 2)
                                  : QRect(track.x() + at - 2, track.y(), 2, track.height());
      painter.fillRect(tick, Qt::white);
    }
  }
  if (levels.silent) {
    painter.setPen(QPen(QColor(panel_colors::kBad), 2));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(area.adjusted(1, 1, -1, -1));
  }
}

QPixmap sound_cell(const FeedRow& row) {
  const int pairs = std::max<int>(1, static_cast<int>(row.sound.pairs.size()));
  const int height = std::clamp(pairs * 6 + 4, 16, 52);
  QPixmap cell(kSoundCellWidth, height);
  cell.fill(Qt::transparent);
  QPainter painter(&cell);
  const QRect area(0, 0, kSoundCellWidth, height);
  // A feed that stopped shows its meters empty, not its last levels.
  SoundLevels shown = row.sound;
  if (row.no_signal) shown.pairs.assign(shown.pairs.size(), PairLevels{});
  paint_audio_meters(painter, area, shown, Qt::Horizontal);
  if (row.sound.silent) {
    QFont font = painter.font();
    font.setBold(true);
    font.setPixelSize(std::min(12, height - 4));
    painter.setFont(font);
    painter.setPen(QColor(panel_colors::kBad));
    painter.drawText(area, Qt::AlignCenter, "SILENT");
  }
  return cell;
}

}  // namespace hdstream
