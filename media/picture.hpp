// A decoded picture as planes, without libav types: what sinks and tests read.
//   for (int p = 0; p < picture.plane_count; ++p) copy(picture.data[p], picture.stride_bytes[p]);
#pragma once

#include <cstdint>

namespace hdstream {

enum class PixelLayout : std::uint8_t {
  invalid = 0,
  yuv422p8 = 1,   // three planes, 8-bit (DNxHD 220)
  yuv422p10 = 2,  // three planes, 16-bit little-endian words holding 10 bits (v210 decoded)
  uyvy422 = 3,    // one packed plane, 8-bit
};

struct Picture {
  int width = 0;
  int height = 0;
  PixelLayout layout = PixelLayout::invalid;
  int plane_count = 0;
  const std::uint8_t* data[4] = {};
  int stride_bytes[4] = {};
  int row_bytes[4] = {};  // bytes of picture in each row (stride may add padding)
  int rows[4] = {};
};

// The shape a picture is shown at, width:height. Studio SD is 4:3 whatever its pixel count
// (ITU-R BT.601: 720x486 and 720x480 at 29.97, 720x576 at 25, and their 704-wide active
// areas), so its pixels are not square; every other size hdstream carries has square pixels.
struct DisplayAspect {
  int width = 0;
  int height = 0;
  friend bool operator==(const DisplayAspect&, const DisplayAspect&) = default;
};

inline DisplayAspect display_aspect(int width, int height) {
  const bool sd =
      (width == 720 || width == 704) && (height == 486 || height == 480 || height == 576);
  return sd ? DisplayAspect{4, 3} : DisplayAspect{width, height};
}

}  // namespace hdstream
