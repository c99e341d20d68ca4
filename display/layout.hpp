// Where pictures go on a screen, without Qt: a picture fitted into an area with its aspect ratio
// kept (pillar- or letterboxed, centred), and the multiview's grid of tiles.
//   const Rect shown = fit(1920, 1080, Rect{0, 0, 1280, 1024});   // {0, 152, 1280, 720}
//   const Grid grid = grid_for(5);                                 // 3x2
//   const auto cells = tiles(grid, Rect{0, 0, 1920, 1080}, 4);
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace hdstream {

struct Rect {
  int x = 0;
  int y = 0;
  int width = 0;
  int height = 0;
  friend bool operator==(const Rect&, const Rect&) = default;
};

struct Grid {
  int columns = 1;
  int rows = 1;
  int cells() const { return columns * rows; }
  friend bool operator==(const Grid&, const Grid&) = default;
};

// The largest rectangle of the picture's aspect (width:height, square pixels) inside `area`,
// centred. A picture the size of the area fills it exactly.
Rect fit(int picture_width, int picture_height, Rect area);

// The grid that shows `feeds` 16:9 pictures largest in `area` (ties: the fewest empty cells,
// then more columns): 5 feeds are 3x2 on a 16:9 screen, 2x3 in a squarer window.
Grid grid_for(std::size_t feeds, Rect area);

// "COLUMNSxROWS", 1 to 4 each (e.g. 2x2, 3x2, 4x4). Throws SpecError naming the problem.
Grid parse_layout(const std::string& text);

// The grid's cells over `area`, row by row, `gap` pixels apart (and from the area's edges).
std::vector<Rect> tiles(Grid grid, Rect area, int gap);

// One screen shared by the multiview (left 7/12) and the operator's panel (the rest).
struct ControlRoom {
  Rect multiview;
  Rect panel;
};
ControlRoom control_room(Rect screen);

}  // namespace hdstream
