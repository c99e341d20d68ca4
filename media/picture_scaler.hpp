// A decoded picture converted and scaled in one libswscale pass to 32-bit BGRA (Qt's RGB32 on a
// little-endian machine), for showing on a screen: BT.709 for HD, BT.601 for SD, limited-range
// video levels expanded to full-range RGB; area averaging to shrink, bilinear to enlarge, point
// when the size is unchanged.
//   PictureScaler scaler;
//   scaler.scale(picture, 640, 360, image.bits(), image.bytesPerLine());   // throws MediaError
#pragma once

#include <cstdint>
#include <vector>

#include "media/picture.hpp"

struct SwsContext;

namespace hdstream {

class PictureScaler {
 public:
  PictureScaler() = default;
  ~PictureScaler();
  PictureScaler(const PictureScaler&) = delete;
  PictureScaler& operator=(const PictureScaler&) = delete;

  // Writes `width` x `height` BGRA pixels (alpha 255) to `out`, rows `out_stride` bytes apart,
  // and not one byte past the last pixel.
  void scale(const Picture& picture, int width, int height, std::uint8_t* out, int out_stride);

 private:
  struct Geometry {
    int source_width, source_height, source_format, width, height;
    bool operator==(const Geometry&) const = default;
  };
  SwsContext* context_ = nullptr;
  Geometry geometry_{};  // what context_ converts
  // libswscale's vector code writes whole blocks of pixels: a row whose width is not a multiple
  // of the block runs past its end (seen: 16 bytes at 106 pixels). Into the next row that is
  // harmless (it is written after); past the last row it is someone else's memory. Such widths
  // are scaled here, with room to spare, and copied out.
  std::vector<std::uint8_t> spill_;
};

}  // namespace hdstream
