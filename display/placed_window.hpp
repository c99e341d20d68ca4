// A window made for one screen, the base of every window the display layer opens: borderless
// and above other windows over the whole screen (a projector), or framed over an area.
//   window.show_on_screen();            // or window.show_in(Rect{0, 0, 640, 360});
#pragma once

#include <QtGui/QRasterWindow>
#include <QtGui/QScreen>

#include "display/layout.hpp"

namespace hdstream {

class PlacedWindow : public QRasterWindow {
 public:
  PlacedWindow(QScreen* screen, const QString& title) {
    setScreen(screen);
    setFlags(Qt::Window | Qt::FramelessWindowHint | Qt::WindowStaysOnTopHint);
    setTitle(title);
    setGeometry(screen->geometry());
  }

  // Fullscreen on its screen (no window manager under Xvfb: the geometry does it there).
  void show_on_screen() {
    setGeometry(screen()->geometry());
    showFullScreen();
  }
  // A framed window over `area` (the screen's coordinates) instead of the whole screen.
  void show_in(Rect area) {
    setFlags(Qt::Window);
    setGeometry(area.x, area.y, area.width, area.height);
    show();
  }
};

}  // namespace hdstream
