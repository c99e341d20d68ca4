#include "display/feed_view.hpp"

#include "common/clock.hpp"
#include "common/log.hpp"
#include "display/layout.hpp"
#include "media/media_error.hpp"

namespace hdstream {

void FeedView::attach(std::function<void()> repaint) {
  std::lock_guard lock(mutex_);
  repaint_ = std::move(repaint);
}

void FeedView::detach() {
  std::lock_guard lock(mutex_);
  repaint_ = nullptr;
}

void FeedView::set_area(int width, int height) {
  std::lock_guard lock(mutex_);
  area_width_ = width;
  area_height_ = height;
}

FeedView::Latest FeedView::latest() const {
  std::lock_guard lock(mutex_);
  return latest_;
}

void FeedView::show(const Picture& picture, const PictureFlags& flags) {
  Rect area;
  {
    std::lock_guard lock(mutex_);
    area = Rect{0, 0, area_width_, area_height_};
  }
  const DisplayAspect aspect = display_aspect(picture.width, picture.height);  // SD: 4:3
  const Rect shown = fit(aspect.width, aspect.height, area);
  if (shown.width <= 0 || shown.height <= 0) return;
  std::lock_guard scaling(scaling_);
  if (back_.width() != shown.width || back_.height() != shown.height) {
    back_ = QImage(shown.width, shown.height, QImage::Format_RGB32);
  }
  try {
    scaler_.scale(picture, shown.width, shown.height, back_.bits(),
                  static_cast<int>(back_.bytesPerLine()));
  } catch (const MediaError& error) {
    logger("display")->warn("stream {}: {}", stream_, error.what());
    return;
  }
  std::lock_guard lock(mutex_);
  std::swap(latest_.image, back_);
  latest_.flags = flags;
  latest_.shown_ns = steady_clock_ns();
  ++latest_.pictures;
  latest_.source_width = picture.width;
  latest_.source_height = picture.height;
  if (repaint_) repaint_();
}

}  // namespace hdstream
