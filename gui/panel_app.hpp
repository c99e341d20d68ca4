// Runs the panel on the calling (main) thread while the run's own work goes on in a worker
// thread: Qt stays on the main thread, the io_context keeps its own threads.
//   int code = run_panel_app({.title = "hdstream demo"}, provider, [&] { runtime.run(); },
//                            [&] { runtime.request_stop(); });
#pragma once

#include <functional>
#include <string>

#include "gui/panel_window.hpp"

namespace hdstream {

struct PanelAppOptions {
  std::string title = "hdstream";
  int refresh_ms = 100;
  PanelThresholds thresholds;
};

// True when a window can be shown: $DISPLAY or $WAYLAND_DISPLAY is set, or QT_QPA_PLATFORM
// names a platform explicitly (offscreen in tests).
bool display_available();

// Shows the panel and runs `work` on a worker thread. Closing the window calls `request_stop`
// (work must then wind down and return); when `work` returns the window closes. Returns once
// both happened. With $HDSTREAM_PANEL_SCREENSHOT set, the panel is saved there as a PNG every
// 5 s while the run goes on.
void run_panel_app(const PanelAppOptions& options, PanelWindow::Provider provider,
                   std::function<void()> work, std::function<void()> request_stop);

}  // namespace hdstream
