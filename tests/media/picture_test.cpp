// media/picture.hpp: the shape a picture is shown at. Studio SD (BT.601) is 4:3 whatever its
// pixel count; HD, 2K and anything else hdstream carries has square pixels.
#include "media/picture.hpp"

#include <gtest/gtest.h>

namespace hdstream {
namespace {

TEST(DisplayAspect, StudioSdIsFourByThreeAndEverythingElseHasSquarePixels) {
  for (const auto& [width, height] : {std::pair{720, 486}, std::pair{720, 480}, std::pair{720, 576},
                                      std::pair{704, 480}, std::pair{704, 576}}) {
    EXPECT_EQ(display_aspect(width, height), (DisplayAspect{4, 3})) << width << "x" << height;
  }
  for (const auto& [width, height] :
       {std::pair{1920, 1080}, std::pair{1280, 720}, std::pair{2048, 1080}, std::pair{640, 480},
        std::pair{720, 720}, std::pair{721, 486}, std::pair{0, 0}}) {
    EXPECT_EQ(display_aspect(width, height), (DisplayAspect{width, height}))
        << width << "x" << height;
  }
}

}  // namespace
}  // namespace hdstream
