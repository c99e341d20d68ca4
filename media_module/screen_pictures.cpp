#include "media_module/screen_pictures.hpp"

#include "display/program.hpp"

namespace hdstream {

ScreenPictures::ScreenPictures(MediaOutput& media, std::size_t streams, PanelProvider provider)
    : thumbnails_(streams) {
  if (media.on_screens()) {
    qt_ = std::make_unique<QtApp>();
    wall_ = std::make_unique<VideoWall>(media, streams, std::move(provider));
    media.add_picture_sinks(wall_->sink_factory());
    media.heard = wall_->heard();
  }
  media.add_picture_sinks(thumbnails_.sink_factory());
}

ScreenPictures::~ScreenPictures() {
  wall_.reset();  // the windows go before the QApplication
  qt_.reset();
}

std::optional<Thumbnail> ScreenPictures::latest_thumbnail(std::uint16_t stream) const {
  return thumbnails_.latest(stream);
}

std::optional<std::string> ScreenPictures::thumbnail_jpeg(std::uint16_t stream) const {
  return thumbnails_.jpeg(stream);
}

std::optional<Rect> ScreenPictures::panel_area() const {
  return wall_ ? wall_->panel_area() : std::nullopt;
}

std::function<std::optional<std::string>(int feed)> ScreenPictures::program_cut() const {
  Program* program = wall_ ? wall_->program() : nullptr;
  if (!program) return {};
  return [program](int feed) { return program->cut(feed); };
}

}  // namespace hdstream
