// For the libav users (media/ and mux/): feed codecs and picture layouts as libav identifiers.
//   AVCodecID id = av_codec_id(Codec::dnxhd);
#pragma once

#include <optional>

extern "C" {
#include <libavcodec/avcodec.h>
}

#include "media/picture.hpp"
#include "protocol/handshake.hpp"

namespace hdstream {

AVCodecID av_codec_id(Codec codec);
// The pixel format libavcodec's rawvideo decoder needs for raw codecs (AV_PIX_FMT_NONE otherwise).
AVPixelFormat av_raw_pixel_format(Codec codec);
// The libav pixel format of a decoded picture's layout (AV_PIX_FMT_NONE when invalid).
AVPixelFormat av_pixel_format(PixelLayout layout);
// The feed codec a demuxed stream carries, if hdstream can send it as is.
std::optional<Codec> codec_from_av(AVCodecID id, int pixel_format);

}  // namespace hdstream
