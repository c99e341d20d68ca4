#include "media/av_formats.hpp"

namespace hdstream {

AVCodecID av_codec_id(Codec codec) {
  switch (codec) {
    case Codec::dnxhd:
      return AV_CODEC_ID_DNXHD;
    case Codec::v210:
      return AV_CODEC_ID_V210;
    case Codec::uyvy:
      return AV_CODEC_ID_RAWVIDEO;
    default:
      return AV_CODEC_ID_NONE;
  }
}

AVPixelFormat av_raw_pixel_format(Codec codec) {
  return codec == Codec::uyvy ? AV_PIX_FMT_UYVY422 : AV_PIX_FMT_NONE;
}

AVPixelFormat av_pixel_format(PixelLayout layout) {
  switch (layout) {
    case PixelLayout::yuv422p8:
      return AV_PIX_FMT_YUV422P;
    case PixelLayout::yuv422p10:
      return AV_PIX_FMT_YUV422P10LE;
    case PixelLayout::uyvy422:
      return AV_PIX_FMT_UYVY422;
    case PixelLayout::invalid:
      break;
  }
  return AV_PIX_FMT_NONE;
}

std::optional<Codec> codec_from_av(AVCodecID id, int pixel_format) {
  if (id == AV_CODEC_ID_DNXHD) return Codec::dnxhd;
  if (id == AV_CODEC_ID_V210) return Codec::v210;
  if (id == AV_CODEC_ID_RAWVIDEO && pixel_format == AV_PIX_FMT_UYVY422) return Codec::uyvy;
  return std::nullopt;
}

}  // namespace hdstream
