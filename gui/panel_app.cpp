#include "gui/panel_app.hpp"

#include <cstdlib>
#include <thread>

#include <QtCore/QMetaObject>
#include <QtCore/QTimer>
#include <QtWidgets/QApplication>

namespace hdstream {

bool display_available() {
  for (const char* name : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"}) {
    const char* value = std::getenv(name);
    if (value != nullptr && *value != '\0') return true;
  }
  return false;
}

void run_panel_app(const PanelAppOptions& options, PanelWindow::Provider provider,
                   std::function<void()> work, std::function<void()> request_stop) {
  static int argc = 1;
  static char name[] = "hdstream";
  static char* argv[] = {name, nullptr};
  QApplication app(argc, argv);
  apply_panel_style();
  PanelWindow window(options.title, std::move(provider), options.thresholds);
  window.set_on_close(request_stop);
  window.refresh();
  window.start_timer(options.refresh_ms);
  window.show();
  // For docs and CI artifacts: the panel saved every 5 s while the run goes on, so the file
  // shows it live (not after the feeds finished).
  QTimer screenshot_timer;
  if (const char* path = std::getenv("HDSTREAM_PANEL_SCREENSHOT"); path && *path) {
    QObject::connect(&screenshot_timer, &QTimer::timeout, &window,
                     [&window, file = QString::fromUtf8(path)] { window.grab().save(file); });
    screenshot_timer.start(5000);
  }

  std::jthread worker([&] {
    work();
    // The run is over (duration reached, feeds ended, or stopped): close the panel.
    QMetaObject::invokeMethod(
        &app, [&window] { window.close(); }, Qt::QueuedConnection);
    QMetaObject::invokeMethod(
        &app, [] { QApplication::quit(); }, Qt::QueuedConnection);
  });
  QApplication::exec();
  // The window may have closed first: the worker finishes the run (END, summary) and returns.
}

}  // namespace hdstream
