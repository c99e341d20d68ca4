// Whether this process can reach a screen through Qt: X11, Wayland, or a platform the operator
// names for a console (QT_QPA_PLATFORM=eglfs / linuxfb) or a headless run (offscreen).
//   if (!display_available()) throw UsageError("--gui: no display ...");
#pragma once

#include <cstdlib>

namespace hdstream {

inline bool display_available() {
  for (const char* name : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"}) {
    const char* value = std::getenv(name);
    if (value != nullptr && *value != '\0') return true;
  }
  return false;
}

}  // namespace hdstream
