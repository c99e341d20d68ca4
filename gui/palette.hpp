// The panel's colours: one place, so lights, rows and chart agree.
//   QColor c = health_color(Health::warn);   QColor s = feed_color(3);
#pragma once

#include <QtGui/QColor>

#include "gui/panel_model.hpp"

namespace hdstream {

namespace panel_colors {
inline constexpr const char* kWindow = "#15181d";
inline constexpr const char* kSurface = "#1d2128";
inline constexpr const char* kGrid = "#2c323c";
inline constexpr const char* kText = "#e6e9ee";
inline constexpr const char* kMuted = "#8a93a3";
inline constexpr const char* kAccent = "#4fc3f7";
inline constexpr const char* kGood = "#2ecc71";
inline constexpr const char* kWarn = "#f1c40f";
inline constexpr const char* kBad = "#e74c3c";
inline constexpr const char* kStale = "#5d6573";
}  // namespace panel_colors

inline QColor health_color(Health health) {
  switch (health) {
    case Health::good:
      return QColor(panel_colors::kGood);
    case Health::warn:
      return QColor(panel_colors::kWarn);
    case Health::bad:
      return QColor(panel_colors::kBad);
    case Health::stale:
      return QColor(panel_colors::kStale);
    case Health::unknown:
      break;
  }
  return QColor(panel_colors::kMuted);
}

// Distinct, colour-blind-friendlier hues for up to 16 feeds, then repeating.
inline QColor feed_color(std::size_t index) {
  static constexpr const char* kHues[] = {
      "#e69f00", "#56b4e9", "#009e73", "#f0e442", "#0072b2", "#d55e00", "#cc79a7", "#bbbbbb",
      "#ff9da7", "#9c755f", "#76b7b2", "#edc948", "#b07aa1", "#59a14f", "#af7aa1", "#86bcb6"};
  return QColor(kHues[index % (sizeof(kHues) / sizeof(kHues[0]))]);
}

}  // namespace hdstream
