// Runs Qt on the calling (main) thread while the run's own work goes on in a worker thread: Qt
// stays on the main thread, the io_context keeps its own threads. The operator's panel and the
// display layer's screens (display/) share the one QApplication.
//   QtApp qt;                                   // before any window: screens are known from here
//   run_qt_app(&panel_options, provider, [&] { runtime.run(); }, [&] { runtime.request_stop(); });
#pragma once

#include <functional>
#include <memory>
#include <optional>

#include <QtCore/QRect>
#include <string>

#include "common/display_env.hpp"
#include "gui/panel_window.hpp"

class QApplication;

namespace hdstream {

struct PanelAppOptions {
  std::string title = "hdstream";
  int refresh_ms = 100;
  PanelThresholds thresholds;
  std::optional<QRect> geometry;  // where to put the panel; the window manager's choice if none
  std::function<void(int stream)> on_select;  // keys 0-9, a click on a row (program cuts)
  PictureProvider pictures;                   // the rows' pictures; none: no Picture column
};

// The process's QApplication, made on the main thread (display_available() must hold). Only one
// exists at a time; run_qt_app makes its own when there is none.
class QtApp {
 public:
  QtApp();
  ~QtApp();
  QtApp(const QtApp&) = delete;
  QtApp& operator=(const QtApp&) = delete;

 private:
  std::unique_ptr<QApplication> app_;
};

// Runs the Qt event loop, with the panel when `panel` is given, and `work` on a worker thread.
// Closing the panel calls `request_stop` (work must then wind down and return); when `work`
// returns the panel closes and the loop ends. Returns once both happened. With
// $HDSTREAM_PANEL_SCREENSHOT set, the panel is saved there as a PNG every 5 s while the run
// goes on.
void run_qt_app(const PanelAppOptions* panel, PanelWindow::Provider provider,
                std::function<void()> work, std::function<void()> request_stop);

}  // namespace hdstream
