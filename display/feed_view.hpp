// One feed's pictures on its way to one place on a screen (a fullscreen output or a multiview
// tile): the decode worker converts and scales each picture to the size the window asked for
// (one libswscale pass) and swaps it in; the window's GUI thread paints the latest one. The
// decoder never waits for the screen, and the screen never sees half a picture.
//   auto view = std::make_shared<FeedView>(stream);
//   view->attach([window] { post a repaint });  view->set_area(1920, 1080);   // GUI thread
//   view->show(picture, flags);                                              // decode worker
//   const FeedView::Latest latest = view->latest();                          // GUI thread
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>

#include <QtGui/QImage>

#include "media/picture_scaler.hpp"
#include "pipeline/picture_sink.hpp"

namespace hdstream {

class FeedView : public PictureSink {
 public:
  explicit FeedView(std::uint16_t stream) : stream_(stream) {}

  struct Latest {
    QImage image;  // fitted into the area with the picture's aspect kept; null before the first
    PictureFlags flags;
    std::optional<std::int64_t> shown_ns;  // steady clock of the last picture
    std::uint64_t pictures = 0;            // pictures shown so far
    int source_width = 0;
    int source_height = 0;
  };

  std::uint16_t stream() const { return stream_; }

  // GUI thread. `repaint` is called (from the decode worker) after each new picture; it must
  // only post work to the GUI thread. detach() stops the calls before the window goes away.
  void attach(std::function<void()> repaint);
  void detach();
  // GUI thread: the area pictures are fitted into, in device pixels (0 x 0: not shown).
  void set_area(int width, int height);
  Latest latest() const;

  void show(const Picture& picture, const PictureFlags& flags) override;

 private:
  std::uint16_t stream_;
  mutable std::mutex mutex_;
  std::function<void()> repaint_;
  int area_width_ = 0;
  int area_height_ = 0;
  Latest latest_;
  // The decode worker's (two, for a moment, when the program output is cut to another feed).
  std::mutex scaling_;
  PictureScaler scaler_;
  QImage back_;
};

}  // namespace hdstream
