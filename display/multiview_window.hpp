// Every feed tiled on one screen (`--output multiview[:N]`), as a broadcast multiviewer shows
// them: each tile the feed's picture with its aspect kept, a label (feed, source, format, Mbps,
// drops, FROZEN / BLACK / SILENT alarms), the sound's meters up its right edge
// (gui/audio_meters.hpp) and a border in the panel's health colours (green / amber / red,
// judged by the panel's own model). A tile whose feed has shown nothing for 600 ms shows the
// NO SIGNAL slate instead of a frozen picture.
//   MultiviewWindow window(screen, grid, views, provider);   window.show_on_screen();
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include <QtCore/QRect>
#include <QtCore/QTimer>

#include "display/feed_view.hpp"
#include "display/layout.hpp"
#include "display/placed_window.hpp"
#include "display/program.hpp"
#include "gui/panel_model.hpp"
#include "gui/panel_window.hpp"

namespace hdstream {

class MultiviewWindow : public PlacedWindow {
 public:
  // A tile stops showing pictures this long after the last one (within the 1 s promised).
  static constexpr std::int64_t kNoSignalAfterNs = 600'000'000;

  // `grid`: the operator's --layout; none: the best grid for the window's size (grid_for).
  // With a `program`, the tile on air carries a red PGM tally, and keys 0-9 or a click on a
  // tile cut the program to that feed.
  MultiviewWindow(QScreen* screen, std::optional<Grid> grid,
                  std::vector<std::shared_ptr<FeedView>> views, PanelWindow::Provider provider,
                  Program* program = nullptr);
  ~MultiviewWindow() override;

  // Repaints the tile of views[index] alone (GUI thread): its feed has a new picture.
  void repaint_tile(std::size_t index);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;

 private:
  struct Tile {
    Rect cell;   // border included
    Rect inner;  // where the picture goes
  };
  void layout_tiles();
  void refresh();
  void paint_tile(QPainter& painter, const Tile& tile, const FeedView& view,
                  std::int64_t now_ns) const;
  const FeedRow* row_for(std::uint16_t stream) const;
  QRect logical(const Rect& device) const;  // device pixels -> the window's coordinates

  std::optional<Grid> grid_;
  std::vector<std::shared_ptr<FeedView>> views_;
  std::vector<Tile> tiles_;
  PanelWindow::Provider provider_;
  PanelModel model_;
  QTimer timer_;
  Program* program_ = nullptr;
};

}  // namespace hdstream
