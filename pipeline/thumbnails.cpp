#include "pipeline/thumbnails.hpp"

#include <algorithm>
#include <cmath>

#include "common/clock.hpp"
#include "common/log.hpp"
#include "media/media_error.hpp"
#include "media/picture_scaler.hpp"

namespace hdstream {

struct Thumbnails::Slot {
  mutable std::mutex mutex;
  Thumbnail latest;
  std::uint64_t jpeg_seq = 0;  // the thumbnail `jpeg` was made from
  std::string jpeg;
};

class Thumbnails::Sink : public PictureSink {
 public:
  Sink(std::shared_ptr<Slot> slot, ThumbnailOptions options)
      : slot_(std::move(slot)), options_(options) {}

  void show(const Picture& picture, const PictureFlags&) override {
    const std::int64_t now = steady_clock_ns();
    if (next_ns_ && now < *next_ns_) return;
    next_ns_ = now + options_.interval.count();
    const auto [width, height] = fitted(picture.width, picture.height, options_);
    if (width == 0) return;
    back_.resize(static_cast<std::size_t>(width) * height * 4);
    try {
      scaler_.scale(picture, width, height, back_.data(), width * 4);
    } catch (const MediaError& error) {
      // A picture libswscale cannot take: no thumbnail of it (NO SIGNAL), the feed goes on.
      if (!warned_) logger("media")->warn("thumbnail: {}", error.what());
      warned_ = true;
      return;
    }
    const std::scoped_lock lock(slot_->mutex);
    Thumbnail& latest = slot_->latest;
    latest.width = width;
    latest.height = height;
    latest.bgra.swap(back_);
    latest.made_ns = now;
    ++latest.seq;
  }

 private:
  std::shared_ptr<Slot> slot_;
  ThumbnailOptions options_;
  std::optional<std::int64_t> next_ns_;
  bool warned_ = false;
  PictureScaler scaler_;
  std::vector<std::uint8_t> back_;
};

Thumbnails::Thumbnails(std::size_t streams, ThumbnailOptions options) : options_(options) {
  for (std::size_t i = 0; i < streams; ++i) slots_.push_back(std::make_shared<Slot>());
}

Thumbnails::~Thumbnails() = default;

std::pair<int, int> Thumbnails::fitted(int picture_width, int picture_height,
                                       const ThumbnailOptions& options) {
  if (picture_width <= 0 || picture_height <= 0) return {0, 0};
  const auto [width, height] = display_aspect(picture_width, picture_height);  // SD: 4:3
  const double scale = std::min(static_cast<double>(options.max_width) / width,
                                static_cast<double>(options.max_height) / height);
  const auto even = [](double size) { return std::max(2, static_cast<int>(size / 2) * 2); };
  return {even(width * scale), even(height * scale)};
}

MediaOutput::SinkFactory Thumbnails::sink_factory() {
  // The slots, not the board: a sink never reaches back into Thumbnails.
  return [slots = slots_, options = options_](std::uint16_t stream, const Hello&) {
    std::vector<std::shared_ptr<PictureSink>> sinks;
    if (stream < slots.size()) sinks.push_back(std::make_shared<Sink>(slots[stream], options));
    return sinks;
  };
}

std::optional<Thumbnail> Thumbnails::latest(std::uint16_t stream) const {
  if (stream >= slots_.size()) return std::nullopt;
  const std::scoped_lock lock(slots_[stream]->mutex);
  if (slots_[stream]->latest.seq == 0) return std::nullopt;
  return slots_[stream]->latest;
}

std::uint64_t Thumbnails::jpegs_made_for_test() const {
  const std::scoped_lock lock(jpeg_mutex_);
  return jpegs_made_;
}

std::optional<std::string> Thumbnails::jpeg(std::uint16_t stream) {
  if (stream >= slots_.size()) return std::nullopt;
  Slot& slot = *slots_[stream];
  std::optional<Thumbnail> thumbnail;
  {
    const std::scoped_lock lock(slot.mutex);
    if (slot.latest.seq == 0) return std::nullopt;
    if (slot.jpeg_seq == slot.latest.seq) return slot.jpeg;
    thumbnail = slot.latest;
  }
  std::string bytes;
  {
    const std::scoped_lock lock(jpeg_mutex_);
    bytes = jpeg_encoder_.encode(thumbnail->bgra.data(), thumbnail->width, thumbnail->height,
                                 thumbnail->width * 4);
    ++jpegs_made_;
  }
  const std::scoped_lock lock(slot.mutex);
  if (thumbnail->seq > slot.jpeg_seq) {
    slot.jpeg_seq = thumbnail->seq;
    slot.jpeg = bytes;
  }
  return bytes;
}

}  // namespace hdstream
