#include "display/layout.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "pipeline/media_sources.hpp"

namespace hdstream {

Rect fit(int picture_width, int picture_height, Rect area) {
  if (picture_width <= 0 || picture_height <= 0 || area.width <= 0 || area.height <= 0) {
    return Rect{area.x, area.y, 0, 0};
  }
  // Compare width/height ratios in integers: exact for equal sizes, no rounding drift.
  const long long wide = static_cast<long long>(picture_width) * area.height;
  const long long tall = static_cast<long long>(picture_height) * area.width;
  Rect shown = area;
  if (wide > tall) {  // wider than the area: full width, letterbox bars above and below
    shown.height = static_cast<int>(
        std::lround(static_cast<double>(area.width) * picture_height / picture_width));
  } else if (wide < tall) {  // taller: full height, pillarbox bars left and right
    shown.width = static_cast<int>(
        std::lround(static_cast<double>(area.height) * picture_width / picture_height));
  }
  shown.x = area.x + (area.width - shown.width) / 2;
  shown.y = area.y + (area.height - shown.height) / 2;
  return shown;
}

Grid grid_for(std::size_t feeds, Rect area) {
  const int n = static_cast<int>(std::max<std::size_t>(feeds, 1));
  Grid best;
  long best_area = -1;
  int best_empty = 0;
  for (int columns = n; columns >= 1; --columns) {
    const Grid grid{columns, (n + columns - 1) / columns};
    const Rect shown = fit(16, 9, Rect{0, 0, area.width / grid.columns, area.height / grid.rows});
    const long shown_area = static_cast<long>(shown.width) * shown.height;
    const int empty = grid.cells() - n;
    if (shown_area > best_area || (shown_area == best_area && empty < best_empty)) {
      best = grid;
      best_area = shown_area;
      best_empty = empty;
    }
  }
  return best;
}

Grid parse_layout(const std::string& text) {
  Grid grid;
  const auto x = text.find('x');
  const auto number = [&](std::string_view digits, int& out) {
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), out);
    return error == std::errc() && end == digits.data() + digits.size() && out >= 1 && out <= 4;
  };
  if (x == std::string::npos || !number(std::string_view(text).substr(0, x), grid.columns) ||
      !number(std::string_view(text).substr(x + 1), grid.rows)) {
    throw SpecError(fmt::format(
        "--layout '{}': expected COLUMNSxROWS with 1 to 4 each, e.g. 2x2, 3x2 or 4x4", text));
  }
  return grid;
}

std::vector<Rect> tiles(Grid grid, Rect area, int gap) {
  std::vector<Rect> cells;
  const int width = (area.width - gap * (grid.columns + 1)) / grid.columns;
  const int height = (area.height - gap * (grid.rows + 1)) / grid.rows;
  for (int row = 0; row < grid.rows; ++row) {
    for (int column = 0; column < grid.columns; ++column) {
      cells.push_back(Rect{area.x + gap + column * (width + gap),
                           area.y + gap + row * (height + gap), width, height});
    }
  }
  return cells;
}

ControlRoom control_room(Rect screen) {
  const int left = screen.width * 7 / 12;  // leaves the panel ~800 pixels on a 1920 screen
  return ControlRoom{Rect{screen.x, screen.y, left, screen.height},
                     Rect{screen.x + left, screen.y, screen.width - left, screen.height}};
}

}  // namespace hdstream
