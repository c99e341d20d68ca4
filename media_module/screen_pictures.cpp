#include "media_module/screen_pictures.hpp"

#include <QtGui/QImage>

#include "display/program.hpp"

namespace hdstream {

ScreenPictures::ScreenPictures(MediaOutput& media, std::size_t streams, PanelProvider provider)
    : thumbnails_(streams) {
  if (media.on_screens()) {
    qt_ = std::make_unique<QtApp>();
    wall_ = std::make_unique<VideoWall>(media, streams, std::move(provider));
    media.add_picture_sinks(wall_->sink_factory());
  }
  media.add_picture_sinks(thumbnails_.sink_factory());
}

ScreenPictures::~ScreenPictures() {
  wall_.reset();  // the windows go before the QApplication
  qt_.reset();
}

std::optional<std::string> ScreenPictures::thumbnail_jpeg(std::uint16_t stream) const {
  return thumbnails_.jpeg(stream);
}

std::function<std::optional<std::string>(int feed)> ScreenPictures::program_cut() const {
  Program* program = wall_ ? wall_->program() : nullptr;
  if (!program) return {};
  return [program](int feed) { return program->cut(feed); };
}

PictureProvider ScreenPictures::panel_pictures() const {
  return [this](const FeedRow& row) -> std::optional<PanelPicture> {
    const auto thumbnail = thumbnails_.latest(row.stream);
    if (!thumbnail) return std::nullopt;
    QImage image(thumbnail->bgra.data(), thumbnail->width, thumbnail->height, thumbnail->width * 4,
                 QImage::Format_RGB32);
    return PanelPicture{image.copy(), thumbnail->seq};
  };
}

}  // namespace hdstream
