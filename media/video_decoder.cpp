#include "media/video_decoder.hpp"

#include <cstring>
#include <utility>

#include <fmt/format.h>

extern "C" {
#include <libavutil/buffer.h>
#include <libavutil/pixdesc.h>
}

#include "media/av_formats.hpp"
#include "media/formats.hpp"
#include "media/media_error.hpp"

namespace hdstream {
namespace {

PixelLayout layout_of(int format) {
  switch (format) {
    case AV_PIX_FMT_YUV422P:
      return PixelLayout::yuv422p8;
    case AV_PIX_FMT_YUV422P10LE:
      return PixelLayout::yuv422p10;
    case AV_PIX_FMT_UYVY422:
      return PixelLayout::uyvy422;
    default:
      return PixelLayout::invalid;
  }
}

}  // namespace

VideoDecoder::VideoDecoder(const FeedDescriptor& feed, int threads)
    : feed_(feed), threads_(threads) {
  quiet_libav();
  frame_ = av_frame_alloc();
  packet_ = av_packet_alloc();
  try {
    if (!frame_ || !packet_) throw MediaError("out of memory creating a decoder");
    open(feed.codec == Codec::dnxhd ? FF_IDCT_XVID : FF_IDCT_AUTO);
  } catch (...) {
    release();  // the destructor does not run for a constructor that throws
    throw;
  }
}

void VideoDecoder::open(int idct_algo) {
  avcodec_free_context(&context_);
  const AVCodecID id = av_codec_id(feed_.codec);
  const AVCodec* codec = id == AV_CODEC_ID_NONE ? nullptr : avcodec_find_decoder(id);
  if (!codec) {
    throw MediaError(
        fmt::format("no libavcodec decoder for {} in this FFmpeg build", to_string(feed_.codec)));
  }
  context_ = avcodec_alloc_context3(codec);
  if (!context_) throw MediaError("out of memory creating a decoder");
  context_->width = feed_.width;
  context_->height = feed_.height;
  context_->thread_count = threads_;
  context_->idct_algo = idct_algo;
  const AVPixelFormat raw = av_raw_pixel_format(feed_.codec);
  if (raw != AV_PIX_FMT_NONE) context_->pix_fmt = raw;
  av_check(avcodec_open2(context_, codec, nullptr),
           fmt::format("open the {} decoder", to_string(feed_.codec)));
}

// DNxHD opens with libavcodec's xvid IDCT: for 8-bit DNxHD it is SSE2, IEEE 1180-conformant
// (at most 1 LSB from the default "simple" IDCT, on 0.2 % of samples) and decodes DNxHD 220
// ~28 % faster on this machine. libavcodec has no 10-bit xvid IDCT and computes 10-bit with the
// simple one either way, but only "auto" selects its SIMD version (xvid is 60 % slower there).
// The depth is in each frame's header, so the first picture decides; DNxHD is intra-only, so
// reopening between two frames changes nothing else.
void VideoDecoder::choose_idct_after_first_picture() {
  idct_chosen_ = true;
  const auto* descriptor = av_pix_fmt_desc_get(static_cast<AVPixelFormat>(frame_->format));
  if (context_->idct_algo == FF_IDCT_XVID && descriptor && descriptor->comp[0].depth != 8) {
    reopen_with_ = FF_IDCT_AUTO;
  }
}

VideoDecoder::~VideoDecoder() {
  release();
}

void VideoDecoder::release() {
  av_packet_free(&packet_);
  av_frame_free(&frame_);
  avcodec_free_context(&context_);
  av_buffer_pool_uninit(&packet_pool_);
}

void VideoDecoder::copy_into_packet(std::span<const std::byte> bitstream) {
  const std::size_t padded = bitstream.size() + AV_INPUT_BUFFER_PADDING_SIZE;
  if (padded > packet_pool_bytes_) {
    // Buffers still referenced by a picture outlive the old pool.
    av_buffer_pool_uninit(&packet_pool_);
    packet_pool_ = av_buffer_pool_init(padded, nullptr);
    packet_pool_bytes_ = packet_pool_ ? padded : 0;
  }
  packet_->buf = packet_pool_ ? av_buffer_pool_get(packet_pool_) : nullptr;
  if (!packet_->buf) throw MediaError("out of memory for a packet");
  packet_->data = packet_->buf->data;
  packet_->size = static_cast<int>(bitstream.size());
  // An empty span may have a null data(): memcpy from null is undefined even for 0 bytes (UBSan).
  if (!bitstream.empty()) std::memcpy(packet_->data, bitstream.data(), bitstream.size());
  std::memset(packet_->data + bitstream.size(), 0, AV_INPUT_BUFFER_PADDING_SIZE);
}

// The packet references the caller's bytes (read-only) and holds `owner` until libavcodec lets
// go of the last reference: the packet's, or the picture's that the raw decoder made from it.
void VideoDecoder::lend_to_packet(std::span<const std::byte> bitstream,
                                  std::shared_ptr<const void> owner) {
  auto* held = new std::shared_ptr<const void>(std::move(owner));
  // libavutil's buffer type is mutable; AV_BUFFER_FLAG_READONLY keeps it from being written.
  auto* bytes = reinterpret_cast<std::uint8_t*>(const_cast<std::byte*>(bitstream.data()));
  packet_->buf = av_buffer_create(
      bytes, bitstream.size(),
      [](void* opaque, std::uint8_t*) { delete static_cast<std::shared_ptr<const void>*>(opaque); },
      held, AV_BUFFER_FLAG_READONLY);
  if (!packet_->buf) {
    delete held;
    throw MediaError("out of memory for a packet");
  }
  packet_->data = bytes;
  packet_->size = static_cast<int>(bitstream.size());
}

const Picture& VideoDecoder::decode(std::span<const std::byte> bitstream,
                                    std::shared_ptr<const void> owner) {
  if (reopen_with_) {
    // Before the next frame: the last picture's buffers belonged to the old context.
    av_frame_unref(frame_);
    open(*std::exchange(reopen_with_, std::nullopt));
  }
  av_packet_unref(packet_);
  av_frame_unref(frame_);  // the last picture may hold the caller's bytes: let them go first
  if (owner && !is_compressed(feed_.codec) && !bitstream.empty()) {
    lend_to_packet(bitstream, std::move(owner));
  } else {
    copy_into_packet(bitstream);
  }

  const int sent = avcodec_send_packet(context_, packet_);
  if (sent < 0) {
    // A frame that failed inside the decoder can leave one queued; drain it so the next
    // frame starts clean.
    avcodec_flush_buffers(context_);
    av_check(sent, "decode");
  }
  const int received = avcodec_receive_frame(context_, frame_);
  if (received == AVERROR(EAGAIN)) throw MediaError("decode: the frame produced no picture");
  av_check(received, "decode");
  if (frame_->width != feed_.width || frame_->height != feed_.height ||
      layout_of(frame_->format) == PixelLayout::invalid) {
    const char* name = av_get_pix_fmt_name(static_cast<AVPixelFormat>(frame_->format));
    throw MediaError(fmt::format("decode: picture is {}x{} {}, the feed announced {}x{}",
                                 frame_->width, frame_->height, name ? name : "?", feed_.width,
                                 feed_.height));
  }

  if (!idct_chosen_) choose_idct_after_first_picture();

  picture_ = Picture{};
  picture_.width = frame_->width;
  picture_.height = frame_->height;
  picture_.layout = layout_of(frame_->format);
  const auto* descriptor = av_pix_fmt_desc_get(static_cast<AVPixelFormat>(frame_->format));
  picture_.plane_count = av_pix_fmt_count_planes(static_cast<AVPixelFormat>(frame_->format));
  for (int p = 0; p < picture_.plane_count; ++p) {
    const bool chroma = p == 1 || p == 2;
    const int width =
        chroma ? AV_CEIL_RSHIFT(frame_->width, descriptor->log2_chroma_w) : frame_->width;
    const int bytes_per_sample = descriptor->comp[0].step;  // 1 (8-bit) or 2 (10-bit), 2 for uyvy
    picture_.data[p] = frame_->data[p];
    picture_.stride_bytes[p] = frame_->linesize[p];
    picture_.row_bytes[p] =
        picture_.layout == PixelLayout::uyvy422 ? frame_->width * 2 : width * bytes_per_sample;
    picture_.rows[p] =
        chroma ? AV_CEIL_RSHIFT(frame_->height, descriptor->log2_chroma_h) : frame_->height;
  }
  return picture_;
}

}  // namespace hdstream
