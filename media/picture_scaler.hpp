// A decoded picture converted and scaled in one libswscale pass to 32-bit BGRA (Qt's RGB32 on a
// little-endian machine), for showing on a screen: BT.709 for HD, BT.601 for SD, limited-range
// video levels expanded to full-range RGB, bilinear (point when the size is unchanged).
//   PictureScaler scaler;
//   scaler.scale(picture, 640, 360, image.bits(), image.bytesPerLine());   // throws MediaError
#pragma once

#include <cstdint>

#include "media/picture.hpp"

struct SwsContext;

namespace hdstream {

class PictureScaler {
 public:
  PictureScaler() = default;
  ~PictureScaler();
  PictureScaler(const PictureScaler&) = delete;
  PictureScaler& operator=(const PictureScaler&) = delete;

  // Writes `width` x `height` BGRA pixels (alpha 255) to `out`, rows `out_stride` bytes apart.
  void scale(const Picture& picture, int width, int height, std::uint8_t* out, int out_stride);

 private:
  SwsContext* context_ = nullptr;
};

}  // namespace hdstream
