#include "mux/ts_encoder.hpp"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>
}

#include "common/log.hpp"
#include "common/units.hpp"
#include "media/av_formats.hpp"
#include "mux/av_error.hpp"

namespace hdstream {
namespace {

constexpr int kIoBufferBytes = 8 * kSrtTsPayloadBytes;
constexpr int kMuxDelayUs = 100'000;

}  // namespace

TsEncoder::TsEncoder(const FeedDescriptor& feed, const TsSettings& settings, WriteMessage write,
                     int threads)
    : feed_(feed), write_(std::move(write)) {
  const std::uint64_t video_rate_bps = settings.video_rate_bps;
  quiet_libav();
  const AVCodec* codec = avcodec_find_encoder(AV_CODEC_ID_MPEG2VIDEO);
  if (!codec) throw MediaError("this FFmpeg build has no MPEG-2 video encoder (mpeg2video)");
  try {
    encoder_ = avcodec_alloc_context3(codec);
    frame_ = av_frame_alloc();
    packet_ = av_packet_alloc();
    if (!encoder_ || !frame_ || !packet_) throw MediaError("out of memory creating the encoder");
    encoder_->width = feed.width;
    encoder_->height = feed.height;
    encoder_->pix_fmt = AV_PIX_FMT_YUV422P;
    encoder_->profile = FF_PROFILE_MPEG2_422;  // level: libavcodec picks main or high by size
    encoder_->time_base =
        AVRational{static_cast<int>(feed.frame_rate_den), static_cast<int>(feed.frame_rate_num)};
    encoder_->framerate =
        AVRational{static_cast<int>(feed.frame_rate_num), static_cast<int>(feed.frame_rate_den)};
    encoder_->sample_aspect_ratio = AVRational{1, 1};
    // I-frames only, no B-frames: no reordering delay, and a lost packet spoils one picture.
    encoder_->gop_size = 1;
    encoder_->max_b_frames = 0;
    encoder_->flags |=
        AV_CODEC_FLAG_LOW_DELAY;  // says so in the stream: decoders hold nothing back
    // Constant bit rate (stuffing when a picture is simple), so the link carries what the
    // plan says; the VBV holds a few pictures.
    const auto rate = static_cast<std::int64_t>(video_rate_bps);
    encoder_->bit_rate = rate;
    encoder_->rc_min_rate = rate;
    encoder_->rc_max_rate = rate;
    encoder_->rc_buffer_size = static_cast<int>(
        std::min<double>(3.0 * static_cast<double>(rate) / feed.frames_per_second(), 47'185'920));
    const bool hd = feed.height > 576;
    encoder_->color_primaries = hd ? AVCOL_PRI_BT709 : AVCOL_PRI_SMPTE170M;
    encoder_->color_trc = hd ? AVCOL_TRC_BT709 : AVCOL_TRC_SMPTE170M;
    encoder_->colorspace = hd ? AVCOL_SPC_BT709 : AVCOL_SPC_SMPTE170M;
    encoder_->field_order = AV_FIELD_PROGRESSIVE;
    // At least two slice threads: with one, libavcodec's MPEG-2 encoder sizes its output for
    // the coded picture alone and fails ("stuffing too large") when constant bit rate pads a
    // simple SD picture.
    encoder_->thread_count = std::max(threads, 2);
    encoder_->thread_type = FF_THREAD_SLICE;
    av_opt_set_int(encoder_->priv_data, "intra_vlc", 1, 0);  // better for intra-only at high rates
    av_check(
        avcodec_open2(encoder_, codec, nullptr),
        fmt::format("open the MPEG-2 4:2:2 encoder at {}x{} {:.2f} fps {}", feed.width, feed.height,
                    feed.frames_per_second(), format_rate(static_cast<double>(video_rate_bps))));
    frame_->format = AV_PIX_FMT_YUV422P;
    frame_->width = feed.width;
    frame_->height = feed.height;
    av_check(av_frame_get_buffer(frame_, 0), "allocate the encoder's picture");

    av_check(avformat_alloc_output_context2(&format_, nullptr, "mpegts", nullptr),
             "create the MPEG-TS muxer");
    auto* io_buffer = static_cast<std::uint8_t*>(av_malloc(kIoBufferBytes));
    if (!io_buffer) throw MediaError("out of memory creating the MPEG-TS output");
    io_ = avio_alloc_context(io_buffer, kIoBufferBytes, 1, this, nullptr, write_packet, nullptr);
    if (!io_) {
      av_free(io_buffer);
      throw MediaError("out of memory creating the MPEG-TS output");
    }
    format_->pb = io_;
    format_->flags |= AVFMT_FLAG_CUSTOM_IO;
    // PTS this far after the PCR: a decoder's margin, and room for AAC's priming (its first
    // packet is 1024 samples before the first picture, which would wrap at a delay of 0).
    format_->max_delay = kMuxDelayUs;
    AVStream* stream = avformat_new_stream(format_, nullptr);
    if (!stream) throw MediaError("out of memory creating the MPEG-TS stream");
    av_check(avcodec_parameters_from_context(stream->codecpar, encoder_),
             "describe the MPEG-TS video stream");
    stream->time_base = encoder_->time_base;
    stream->avg_frame_rate = encoder_->framerate;
    if (feed.audio.present()) {
      sound_ = std::make_unique<TsAudioEncoder>(feed.audio, settings.audio);
      AVStream* audio = avformat_new_stream(format_, nullptr);
      if (!audio) throw MediaError("out of memory creating the MPEG-TS audio stream");
      av_check(avcodec_parameters_from_context(audio->codecpar, sound_->context()),
               "describe the MPEG-TS audio stream");
      audio->time_base = sound_->context()->time_base;
    }
    av_dict_set(&format_->metadata, "service_provider", "hdstream", 0);
    av_dict_set(&format_->metadata, "service_name", "hdstream feed", 0);
    av_check(avformat_write_header(format_, nullptr), "start the MPEG-TS stream");
  } catch (...) {
    release();  // the destructor does not run for a constructor that throws
    throw;
  }
}

TsEncoder::~TsEncoder() {
  release();
}

void TsEncoder::release() {
  sws_freeContext(std::exchange(scaler_, nullptr));
  if (format_) {
    format_->pb = nullptr;
    avformat_free_context(std::exchange(format_, nullptr));
  }
  if (io_) {
    av_freep(&io_->buffer);
    avio_context_free(&io_);
  }
  sound_.reset();
  av_packet_free(&packet_);
  av_frame_free(&frame_);
  avcodec_free_context(&encoder_);
}

int TsEncoder::write_packet(void* opaque, std::uint8_t* data, int size) {
  return static_cast<TsEncoder*>(opaque)->take(data, size);
}

bool TsEncoder::emit(std::span<const std::byte> message) {
  if (write_failed_) return false;
  if (!write_(message)) {
    write_failed_ = true;
    return false;
  }
  bytes_written_ += message.size();
  return true;
}

// libavformat writes whatever its buffer holds; the network wants whole 1316-byte messages.
int TsEncoder::take(const std::uint8_t* data, int size) {
  const auto* bytes = reinterpret_cast<const std::byte*>(data);
  std::size_t left = static_cast<std::size_t>(size);
  while (left > 0) {
    const std::size_t n = std::min(left, pending_.size() - pending_bytes_);
    std::memcpy(pending_.data() + pending_bytes_, bytes, n);
    pending_bytes_ += n;
    bytes += n;
    left -= n;
    if (pending_bytes_ == pending_.size()) {
      pending_bytes_ = 0;
      if (!emit(pending_)) return AVERROR(EPIPE);
    }
  }
  return size;
}

void TsEncoder::convert(const Picture& picture) {
  const AVPixelFormat source = av_pixel_format(picture.layout);
  if (source == AV_PIX_FMT_NONE || picture.width != feed_.width || picture.height != feed_.height) {
    throw MediaError(fmt::format("encode: a {}x{} picture for a {}x{} feed", picture.width,
                                 picture.height, feed_.width, feed_.height));
  }
  // Same size, only the pixel format changes (10-bit to 8-bit, packed to planar, or a copy).
  scaler_ =
      sws_getCachedContext(scaler_, picture.width, picture.height, source, feed_.width,
                           feed_.height, AV_PIX_FMT_YUV422P, SWS_POINT, nullptr, nullptr, nullptr);
  if (!scaler_) throw MediaError("encode: libswscale cannot convert this picture to 4:2:2 8-bit");
  av_check(av_frame_make_writable(frame_), "encode: reuse the picture buffer");
  sws_scale(scaler_, picture.data, picture.stride_bytes, 0, picture.height, frame_->data,
            frame_->linesize);
}

void TsEncoder::mux_packets() {
  for (;;) {
    const int rc = avcodec_receive_packet(encoder_, packet_);
    if (rc == AVERROR(EAGAIN) || rc == AVERROR_EOF) break;
    av_check(rc, "encode MPEG-2");
    mux(*packet_, 0, encoder_->time_base);
    av_packet_unref(packet_);
  }
}

// Each stream's packets in order; the TS interleaves them as they come (sound first, then its
// picture), so nothing waits for the other stream.
void TsEncoder::mux(AVPacket& packet, int stream, AVRational from) {
  packet.stream_index = stream;
  av_packet_rescale_ts(&packet, from, format_->streams[stream]->time_base);
  const int written = av_write_frame(format_, &packet);
  if (write_failed_) throw MediaError("the network refused the MPEG-TS");
  av_check(written, "mux MPEG-TS");
}

void TsEncoder::encode_sound(std::span<const std::byte> pcm, std::uint64_t first_sample) {
  if (finished_) throw MediaError("encode: the MPEG-TS stream is finished");
  if (!sound_) throw MediaError("encode: this feed has no sound");
  sound_->encode(pcm, first_sample,
                 [this](AVPacket& packet) { mux(packet, 1, sound_->context()->time_base); });
}

std::size_t TsEncoder::encode(const Picture& picture, std::int64_t frame_index) {
  if (finished_) throw MediaError("encode: the MPEG-TS stream is finished");
  const std::uint64_t before = bytes_written_;
  convert(picture);
  frame_->pts = frame_index;
  av_check(avcodec_send_frame(encoder_, frame_), "encode MPEG-2");
  mux_packets();
  avio_flush(io_);  // the picture leaves now, but for the last partial message
  if (write_failed_) throw MediaError("the network refused the MPEG-TS");
  return static_cast<std::size_t>(bytes_written_ - before);
}

std::size_t TsEncoder::finish() {
  if (finished_) return 0;
  finished_ = true;
  const std::uint64_t before = bytes_written_;
  av_check(avcodec_send_frame(encoder_, nullptr), "drain the MPEG-2 encoder");
  mux_packets();
  if (sound_) {
    sound_->finish([this](AVPacket& packet) { mux(packet, 1, sound_->context()->time_base); });
  }
  av_check(av_write_trailer(format_), "finish the MPEG-TS stream");
  avio_flush(io_);
  if (pending_bytes_ > 0) {
    emit(std::span(pending_).first(pending_bytes_));
    pending_bytes_ = 0;
  }
  if (write_failed_) throw MediaError("the network refused the MPEG-TS");
  return static_cast<std::size_t>(bytes_written_ - before);
}

}  // namespace hdstream
