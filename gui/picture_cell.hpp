// A feed's picture as the panel's table shows it: the receiver's thumbnail, with the picture
// alarms a multiviewer would show on it. NO SIGNAL (a slate) when the feed has stopped or no
// thumbnail came yet; FROZEN / BLACK on an amber band and border over the last picture.
//   QPixmap cell = picture_cell(thumbnail ? &thumbnail->image : nullptr, row);
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include <QtGui/QImage>
#include <QtGui/QPixmap>

#include "gui/panel_model.hpp"

namespace hdstream {

// The cell's size: a 16:9 thumbnail (pipeline/thumbnails makes 128x72 of a 1080 picture).
inline constexpr int kPictureCellWidth = 128;
inline constexpr int kPictureCellHeight = 72;

// A feed's latest thumbnail: `seq` grows with every new one, so the panel redraws a cell only
// when its picture or its alarms changed.
struct PanelPicture {
  QImage image;
  std::uint64_t seq = 0;
};
// Where the panel gets a row's picture: the process's own thumbnails, or a monitor's poller.
using PictureProvider = std::function<std::optional<PanelPicture>(const FeedRow& row)>;

QPixmap picture_cell(const QImage* thumbnail, const FeedRow& row);

}  // namespace hdstream
