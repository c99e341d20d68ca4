#include "gui/panel_app.hpp"

#include <optional>
#include <thread>

#include <QtCore/QMetaObject>
#include <QtCore/QTimer>
#include <QtWidgets/QApplication>

#include "common/log.hpp"

namespace hdstream {

namespace {

// Qt's own messages go to the log, not straight to stderr: its warnings on a normal start (no
// XDG_RUNTIME_DIR, a missing font) are details for --log-level debug, not lines an operator
// must read; its errors stay errors.
void log_qt_message(QtMsgType type, const QMessageLogContext&, const QString& message) {
  const std::string text = message.toStdString();
  switch (type) {
    case QtCriticalMsg:
    case QtFatalMsg:
      logger("qt")->error("{}", text);
      break;
    default:
      logger("qt")->debug("{}", text);
  }
}

}  // namespace

QtApp::QtApp() {
  static int argc = 1;
  static char name[] = "hdstream";
  static char* argv[] = {name, nullptr};
  if (QApplication::instance() == nullptr) {
    qInstallMessageHandler(log_qt_message);
    app_ = std::make_unique<QApplication>(argc, argv);
    apply_panel_style();
  }
}

QtApp::~QtApp() = default;

void run_qt_app(const PanelAppOptions* panel, PanelWindow::Provider provider,
                std::function<void()> work, std::function<void()> request_stop) {
  QtApp app;
  std::optional<PanelWindow> window;
  QTimer screenshot_timer;
  if (panel) {
    window.emplace(panel->title, std::move(provider), panel->thresholds);
    window->set_on_close(request_stop);
    if (panel->on_select) window->set_on_select(panel->on_select);
    if (panel->pictures) window->set_pictures(panel->pictures);
    window->refresh();
    window->start_timer(panel->refresh_ms);
    if (panel->geometry) window->setGeometry(*panel->geometry);
    window->show();
    // For docs and CI artifacts: the panel saved every 5 s while the run goes on, so the file
    // shows it live (not after the feeds finished).
    if (const char* path = std::getenv("HDSTREAM_PANEL_SCREENSHOT"); path && *path) {
      QObject::connect(&screenshot_timer, &QTimer::timeout, &*window,
                       [&window, file = QString::fromUtf8(path)] { window->grab().save(file); });
      screenshot_timer.start(5000);
    }
  }

  std::jthread worker([&] {
    work();
    // The run is over (duration reached, feeds ended, or stopped): close the panel.
    QMetaObject::invokeMethod(
        QApplication::instance(),
        [&window] {
          if (window) window->close();
          QApplication::quit();
        },
        Qt::QueuedConnection);
  });
  QApplication::exec();
  // The panel may have closed first: the worker finishes the run (END, summary) and returns.
}

}  // namespace hdstream
