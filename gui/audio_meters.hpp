// A feed's sound as broadcast meters, drawn alike in the panel's Sound column and on every
// multiview tile: a bar per channel pair on a -60..0 dBFS scale, the RMS solid, the peak beyond
// it in the same colours but lighter, the 2 s peak hold a white tick; green up to -18 dBFS (the
// EBU R68 alignment level), amber to -6, red above. A silent feed (the silence alarm) has its
// meters framed in red.
//   paint_audio_meters(painter, strip, row.sound, Qt::Vertical);   // a multiview tile's edge
//   QPixmap cell = sound_cell(row);                                 // the panel's cell
#pragma once

#include <QtCore/QRect>
#include <QtGui/QColor>
#include <QtGui/QPainter>
#include <QtGui/QPixmap>

#include "gui/panel_model.hpp"
#include "stats/sound_levels.hpp"

namespace hdstream {

inline constexpr double kMeterFloorDbfs = -60.0;
inline constexpr double kMeterAlignmentDbfs = -18.0;  // green up to here
inline constexpr double kMeterHighDbfs = -6.0;        // amber up to here, red above

// How far along a meter `length` pixels long `dbfs` reaches: 0 at or below the floor, `length`
// at 0 dBFS and above, linear in dB between.
int meter_extent(double dbfs, int length);
// The colour of the meter's zone at `dbfs`.
QColor meter_color(double dbfs);

// One bar per pair across `area` (side by side; each filled upwards when vertical, rightwards
// when horizontal), on a dark track.
void paint_audio_meters(QPainter& painter, const QRect& area, const SoundLevels& levels,
                        Qt::Orientation orientation);

// The panel's Sound cell: horizontal meters, SILENT across them when the alarm is raised.
inline constexpr int kSoundCellWidth = 96;
QPixmap sound_cell(const FeedRow& row);

}  // namespace hdstream
