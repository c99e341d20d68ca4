// The screens Qt sees (RandR monitors of an X screen, separate X screens, Wayland outputs, KMS
// connectors), by index, as `--output screen:N` and `multiview:N` name them.
//   QScreen* screen = screen_at(1, "--output screen:1");   // throws SpecError listing screens
#pragma once

#include <string>

class QScreen;

namespace hdstream {

// "0 DUMMY0 1920x1080+0+0, 1 DUMMY1 1280x720+1920+0"
std::string describe_screens();

// Screen `index`, or a SpecError: "<what>: no screen 3 here; screens: 0 ..., 1 ...".
QScreen* screen_at(int index, const std::string& what);

}  // namespace hdstream
