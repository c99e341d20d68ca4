// One feed fullscreen on one screen, for a projector (`--output screen:N`): borderless, above
// other windows, the whole picture scaled to the screen with its aspect ratio kept (black bars
// where the shapes differ), every pixel when the sizes match. Before the first picture it shows
// a discreet "waiting for feed K" line; when the feed stops it holds the last picture, so that
// the audience never sees a slate.
//   ScreenWindow window(screen, view);   window.show_on_screen();   // GUI thread
#pragma once

#include <memory>

#include "display/feed_view.hpp"
#include "display/layout.hpp"
#include "display/placed_window.hpp"

namespace hdstream {

class ScreenWindow : public PlacedWindow {
 public:
  ScreenWindow(QScreen* screen, std::shared_ptr<FeedView> view);
  ~ScreenWindow() override;

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  std::shared_ptr<FeedView> view_;
};

}  // namespace hdstream
