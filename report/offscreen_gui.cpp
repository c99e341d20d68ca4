#include "report/offscreen_gui.hpp"

#include <cstdlib>

namespace hdstream {

std::unique_ptr<QGuiApplication> ensure_gui_application() {
  if (QGuiApplication::instance()) return nullptr;
  if (!std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 1);
  static int argc = 1;
  static char name[] = "hdstream";
  static char* argv[] = {name, nullptr};
  return std::make_unique<QGuiApplication>(argc, argv);
}

}  // namespace hdstream
