#include "media/video_encoder.hpp"

#include <cmath>

#include <fmt/format.h>

extern "C" {
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
}

#include "media/av_formats.hpp"
#include "media/media_error.hpp"

namespace hdstream {

VideoEncoder::VideoEncoder(const FeedDescriptor& feed, int threads) : feed_(feed) {
  quiet_libav();
  if (feed.codec != Codec::dnxhd) {
    throw MediaError(
        fmt::format("hdstream encodes only DNxHD; {} travels uncompressed", to_string(feed.codec)));
  }
  const AVCodec* codec = avcodec_find_encoder(AV_CODEC_ID_DNXHD);
  if (!codec) throw MediaError("this FFmpeg build has no DNxHD encoder (libavcodec 'dnxhd')");
  context_ = avcodec_alloc_context3(codec);
  frame_ = av_frame_alloc();
  packet_ = av_packet_alloc();
  try {
    if (!context_ || !frame_ || !packet_) throw MediaError("out of memory creating an encoder");
    context_->width = feed.width;
    context_->height = feed.height;
    context_->pix_fmt = AV_PIX_FMT_YUV422P;
    context_->time_base =
        AVRational{static_cast<int>(feed.frame_rate_den), static_cast<int>(feed.frame_rate_num)};
    context_->framerate =
        AVRational{static_cast<int>(feed.frame_rate_num), static_cast<int>(feed.frame_rate_den)};
    // libavcodec picks the VC-3 profile from the nominal rate in whole Mbps (220M, not the
    // exact 219.98M payload of 917,504-byte frames at 29.97).
    context_->bit_rate = std::llround(static_cast<double>(feed.bit_rate_bps) / 1e6) * 1'000'000;
    context_->thread_count = threads;
    av_opt_set(context_->priv_data, "profile", "dnxhd", 0);
    av_check(avcodec_open2(context_, codec, nullptr),
             fmt::format("open the DNxHD encoder at {}x{} {:.2f} fps {} bps (libavcodec knows only "
                         "the VC-3 profiles; see ffmpeg -h encoder=dnxhd)",
                         feed.width, feed.height, feed.frames_per_second(), feed.bit_rate_bps));
    frame_->format = AV_PIX_FMT_YUV422P;
    frame_->width = feed.width;
    frame_->height = feed.height;
    av_check(av_frame_get_buffer(frame_, 0), "allocate the encoder's picture");
  } catch (...) {
    release();
    throw;
  }
}

VideoEncoder::~VideoEncoder() {
  release();
}

void VideoEncoder::release() {
  av_packet_free(&packet_);
  av_frame_free(&frame_);
  avcodec_free_context(&context_);
}

std::span<const std::byte> VideoEncoder::encode(const Picture& picture) {
  if (picture.layout != PixelLayout::yuv422p8 || picture.width != feed_.width ||
      picture.height != feed_.height) {
    throw MediaError("encode: the source delivered a picture of another size or format");
  }
  // The frame's buffers are ours alone again once the previous packet has been taken.
  av_check(av_frame_make_writable(frame_), "encode");
  for (int p = 0; p < 3; ++p) {
    av_image_copy_plane(frame_->data[p], frame_->linesize[p], picture.data[p],
                        picture.stride_bytes[p], picture.row_bytes[p], picture.rows[p]);
  }
  frame_->pts = pts_++;
  av_check(avcodec_send_frame(context_, frame_), "encode");
  av_packet_unref(packet_);
  av_check(avcodec_receive_packet(context_, packet_), "encode");
  return {reinterpret_cast<const std::byte*>(packet_->data),
          static_cast<std::size_t>(packet_->size)};
}

}  // namespace hdstream
