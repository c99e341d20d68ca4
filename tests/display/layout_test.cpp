// display/layout: pictures fitted with their aspect kept, and the multiview's grids and tiles.
#include "display/layout.hpp"

#include <gtest/gtest.h>

#include "pipeline/media_sources.hpp"

namespace hdstream {
namespace {

TEST(Fit, SameShapeFillsTheAreaAndOtherShapesGetCentredBars) {
  EXPECT_EQ(fit(1920, 1080, Rect{0, 0, 1920, 1080}), (Rect{0, 0, 1920, 1080}));  // every pixel
  EXPECT_EQ(fit(1920, 1080, Rect{10, 20, 1280, 720}), (Rect{10, 20, 1280, 720}));
  EXPECT_EQ(fit(1920, 1080, Rect{0, 0, 1280, 1024}), (Rect{0, 152, 1280, 720}));   // letterbox
  EXPECT_EQ(fit(1440, 1080, Rect{0, 0, 1920, 1080}), (Rect{240, 0, 1440, 1080}));  // pillarbox
  EXPECT_EQ(fit(720, 486, Rect{0, 0, 1280, 720}), (Rect{106, 0, 1067, 720}));
  EXPECT_EQ(fit(0, 1080, Rect{5, 5, 100, 100}), (Rect{5, 5, 0, 0}));  // nothing to show
  EXPECT_EQ(fit(1920, 1080, Rect{0, 0, 0, 720}), (Rect{0, 0, 0, 0}));
}

TEST(Grid, TheGridThatShowsThePicturesLargestInTheArea) {
  const Rect hd{0, 0, 1920, 1080};
  EXPECT_EQ(grid_for(0, hd), (Grid{1, 1}));
  EXPECT_EQ(grid_for(1, hd), (Grid{1, 1}));
  EXPECT_EQ(grid_for(2, hd), (Grid{2, 1}));  // 960x540 each, not 960x540 over two rows
  EXPECT_EQ(grid_for(3, hd), (Grid{2, 2}));
  EXPECT_EQ(grid_for(4, hd), (Grid{2, 2}));
  EXPECT_EQ(grid_for(5, hd), (Grid{3, 2}));  // 640x360 each (2x3 ties: more columns win)
  EXPECT_EQ(grid_for(7, hd), (Grid{3, 3}));
  EXPECT_EQ(grid_for(10, hd), (Grid{4, 3}));
  EXPECT_EQ(grid_for(16, hd), (Grid{4, 4}));
  // A squarer window beside the panel: 5 feeds stack two wide (560x315 beats 3x2's 373x210).
  EXPECT_EQ(grid_for(5, Rect{0, 0, 1120, 1080}), (Grid{2, 3}));
  EXPECT_EQ(grid_for(3, Rect{0, 0, 480, 1080}), (Grid{1, 3}));  // a tall strip: one column
  // A wide strip: 4x2 and 3x2 both show 5 feeds at 480x270; 3x2 leaves one cell empty, not 3.
  EXPECT_EQ(grid_for(5, Rect{0, 0, 1920, 540}), (Grid{3, 2}));
}

TEST(Grid, LayoutsParseAndBadOnesAreOneLineErrors) {
  EXPECT_EQ(parse_layout("2x2"), (Grid{2, 2}));
  EXPECT_EQ(parse_layout("3x2"), (Grid{3, 2}));
  EXPECT_EQ(parse_layout("4x4"), (Grid{4, 4}));
  for (const char* bad : {"", "x", "2", "2x", "x2", "0x2", "5x1", "2x2x2", "-1x2", "2 x 2", "ax2",
                          "2x2 ", "99999999999x1"}) {
    try {
      parse_layout(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const SpecError& error) {
      const std::string what = error.what();
      EXPECT_EQ(what.find('\n'), std::string::npos);
      EXPECT_NE(what.find("expected COLUMNSxROWS"), std::string::npos) << what;
    }
  }
}

TEST(Tiles, CellsCoverTheAreaRowByRowWithEqualGaps) {
  const auto cells = tiles(Grid{2, 2}, Rect{0, 0, 1280, 720}, 4);
  ASSERT_EQ(cells.size(), 4u);
  EXPECT_EQ(cells[0], (Rect{4, 4, 634, 354}));
  EXPECT_EQ(cells[1], (Rect{642, 4, 634, 354}));
  EXPECT_EQ(cells[2], (Rect{4, 362, 634, 354}));
  EXPECT_EQ(cells[3], (Rect{642, 362, 634, 354}));
  const auto five = tiles(Grid{3, 2}, Rect{1920, 0, 1920, 1080}, 0);  // a second monitor
  EXPECT_EQ(five[4], (Rect{1920 + 640, 540, 640, 540}));
}

TEST(ControlRoom, TheMultiviewTakesTheLeftAndThePanelTheRestOfTheScreen) {
  const ControlRoom room = control_room(Rect{1920, 0, 1920, 1080});
  EXPECT_EQ(room.multiview, (Rect{1920, 0, 1120, 1080}));
  EXPECT_EQ(room.panel, (Rect{3040, 0, 800, 1080}));
}

}  // namespace
}  // namespace hdstream
