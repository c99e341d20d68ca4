#include "media/picture_scaler.hpp"

extern "C" {
#include <libswscale/swscale.h>
}

#include <fmt/format.h>

#include "media/av_formats.hpp"
#include "media/media_error.hpp"

namespace hdstream {

PictureScaler::~PictureScaler() {
  sws_freeContext(context_);
}

void PictureScaler::scale(const Picture& picture, int width, int height, std::uint8_t* out,
                          int out_stride) {
  const AVPixelFormat source = av_pixel_format(picture.layout);
  if (source == AV_PIX_FMT_NONE || width <= 0 || height <= 0) {
    throw MediaError(fmt::format("display: cannot show a {}x{} picture at {}x{}", picture.width,
                                 picture.height, width, height));
  }
  const bool same_size = width == picture.width && height == picture.height;
  context_ = sws_getCachedContext(context_, picture.width, picture.height, source, width, height,
                                  AV_PIX_FMT_BGRA, same_size ? SWS_POINT : SWS_BILINEAR, nullptr,
                                  nullptr, nullptr);
  if (!context_) throw MediaError("display: libswscale cannot convert this picture to RGB");
  // Broadcast levels in (limited range), full-range RGB out; the HD matrix from 720 lines up.
  const int* matrix = sws_getCoefficients(picture.height >= 720 ? SWS_CS_ITU709 : SWS_CS_ITU601);
  sws_setColorspaceDetails(context_, matrix, /*srcRange=*/0, matrix, /*dstRange=*/1, 0, 1 << 16,
                           1 << 16);
  std::uint8_t* planes[4] = {out, nullptr, nullptr, nullptr};
  int strides[4] = {out_stride, 0, 0, 0};
  sws_scale(context_, picture.data, picture.stride_bytes, 0, picture.height, planes, strides);
}

}  // namespace hdstream
