// The media module's Pictures (media_module/media_module.hpp): the thumbnails of every decoded
// feed and, when an output shows pictures on screens, the QApplication and the display layer's
// windows (display/video_wall.hpp).
//   auto pictures = std::make_shared<ScreenPictures>(media, streams, provider);
//   media_module().run_qt({.pictures = pictures.get(), ...});  // its panel area, its program cut
#pragma once

#include <cstddef>
#include <memory>

#include "display/video_wall.hpp"
#include "gui/panel_app.hpp"
#include "media_module/media_module.hpp"
#include "pipeline/thumbnails.hpp"

namespace hdstream {

class ScreenPictures final : public Pictures {
 public:
  // Throws SpecError for an unknown screen or a bad layout.
  ScreenPictures(MediaOutput& media, std::size_t streams, PanelProvider provider);
  ~ScreenPictures() override;
  ScreenPictures(const ScreenPictures&) = delete;
  ScreenPictures& operator=(const ScreenPictures&) = delete;

  std::optional<Thumbnail> latest_thumbnail(std::uint16_t stream) const override;
  std::optional<std::string> thumbnail_jpeg(std::uint16_t stream) const override;
  std::function<std::optional<std::string>(int feed)> program_cut() const override;
  bool on_screens() const override { return wall_ != nullptr; }
  std::optional<Rect> panel_area() const override;

 private:
  mutable Thumbnails thumbnails_;
  std::unique_ptr<QtApp> qt_;  // made before the windows, gone after them
  std::unique_ptr<VideoWall> wall_;
};

}  // namespace hdstream
