#include "display/screens.hpp"

#include <fmt/format.h>

#include <QtGui/QGuiApplication>
#include <QtGui/QScreen>

#include "pipeline/media_sources.hpp"

namespace hdstream {

std::string describe_screens() {
  std::string out;
  const auto screens = QGuiApplication::screens();
  for (int i = 0; i < screens.size(); ++i) {
    const QRect g = screens[i]->geometry();
    out += fmt::format("{}{} {} {}x{}+{}+{}", i ? ", " : "", i, screens[i]->name().toStdString(),
                       g.width(), g.height(), g.x(), g.y());
  }
  return out.empty() ? "none" : out;
}

QScreen* screen_at(int index, const std::string& what) {
  const auto screens = QGuiApplication::screens();
  if (index < 0 || index >= screens.size()) {
    throw SpecError(
        fmt::format("{}: no screen {} here; screens: {}", what, index, describe_screens()));
  }
  return screens[index];
}

}  // namespace hdstream
