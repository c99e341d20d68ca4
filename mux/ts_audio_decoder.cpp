#include "mux/ts_audio_decoder.hpp"

#include <cstring>

#include <fmt/format.h>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/channel_layout.h>
#include <libswresample/swresample.h>
}

#include "media/av_formats.hpp"
#include "mux/av_error.hpp"

namespace hdstream {
namespace {

bool sixteen_bit(int format) {
  return format == AV_SAMPLE_FMT_S16 || format == AV_SAMPLE_FMT_S16P;
}

}  // namespace

TsAudioDecoder::TsAudioDecoder(const AVStream& stream) {
  quiet_libav();
  const AVCodecParameters& parameters = *stream.codecpar;
  const AVCodec* codec = avcodec_find_decoder(parameters.codec_id);
  if (!codec) {
    throw MediaError(
        fmt::format("no decoder for the TS's {} sound", avcodec_get_name(parameters.codec_id)));
  }
  const int channels = parameters.ch_layout.nb_channels;
  if (channels < 1 || channels > kMaxAudioChannels) {
    throw MediaError(fmt::format("the TS's {} sound has {} channels (1 to {} play)", codec->name,
                                 channels, kMaxAudioChannels));
  }
  format_ = AudioFormat{static_cast<std::uint8_t>(channels),
                        static_cast<std::uint8_t>(sixteen_bit(parameters.format) ? 16 : 24),
                        kAudioSampleRate};
  try {
    decoder_ = avcodec_alloc_context3(codec);
    frame_ = av_frame_alloc();
    if (!decoder_ || !frame_) throw MediaError("out of memory opening the TS's sound");
    av_check(avcodec_parameters_to_context(decoder_, &parameters), "describe the TS's sound");
    decoder_->pkt_timebase = stream.time_base;
    av_check(avcodec_open2(decoder_, codec, nullptr),
             fmt::format("open the {} decoder", codec->name));
  } catch (...) {
    av_frame_free(&frame_);
    avcodec_free_context(&decoder_);
    throw;
  }
}

TsAudioDecoder::~TsAudioDecoder() {
  swr_free(&resample_);
  av_frame_free(&frame_);
  avcodec_free_context(&decoder_);
}

const char* TsAudioDecoder::codec_name() const {
  return decoder_->codec->name;
}

bool TsAudioDecoder::decode(const AVPacket& packet, const Samples& out) {
  if (avcodec_send_packet(decoder_, &packet) < 0) return false;
  bool decoded = true;
  for (;;) {
    const int rc = avcodec_receive_frame(decoder_, frame_);
    if (rc == AVERROR(EAGAIN) || rc == AVERROR_EOF) break;
    if (rc < 0) {
      decoded = false;
      break;
    }
    convert(*frame_, out);
    av_frame_unref(frame_);
  }
  return decoded;
}

void TsAudioDecoder::convert(const AVFrame& frame, const Samples& out) {
  const auto samples = static_cast<std::size_t>(frame.nb_samples);
  const std::size_t values = samples * format_.channels;
  const std::size_t width = format_.bits / 8u;
  const std::int64_t pts = frame.best_effort_timestamp;
  if (frame.sample_rate == static_cast<int>(kAudioSampleRate) &&
      frame.ch_layout.nb_channels == format_.channels &&
      frame.format == (width == 2 ? AV_SAMPLE_FMT_S16 : AV_SAMPLE_FMT_S32)) {
    // Interleaved integers at our rate (302M): the samples as they are.
    pack(reinterpret_cast<const std::byte*>(frame.data[0]), values);
    out(pcm_, pts);
    return;
  }
  // Anything else (another rate, float samples, or channels other than announced: a programme
  // switching from stereo to 5.1) is resampled and remixed to the announced sound, the converter
  // rebuilt whenever what comes changes.
  const AVSampleFormat to = width == 2 ? AV_SAMPLE_FMT_S16 : AV_SAMPLE_FMT_S32;
  const Input input{frame.format, frame.sample_rate, frame.ch_layout.nb_channels,
                    frame.ch_layout.order == AV_CHANNEL_ORDER_NATIVE ? frame.ch_layout.u.mask : 0};
  if (!resample_ || input != resample_from_) {
    swr_free(&resample_);
    AVChannelLayout announced{};
    av_channel_layout_default(&announced, format_.channels);
    // FFmpeg 5.1 takes the layouts as non-const; it only reads them.
    auto* layout = const_cast<AVChannelLayout*>(&frame.ch_layout);
    const int rc = swr_alloc_set_opts2(
        &resample_, &announced, to, static_cast<int>(kAudioSampleRate), layout,
        static_cast<AVSampleFormat>(frame.format), frame.sample_rate, 0, nullptr);
    av_channel_layout_uninit(&announced);
    av_check(rc, "convert the TS's sound");
    av_check(swr_init(resample_), "convert the TS's sound");
    resample_from_ = input;
  }
  const int room = swr_get_out_samples(resample_, frame.nb_samples);
  if (room <= 0) return;
  resampled_.resize(static_cast<std::size_t>(room) * format_.channels);
  auto* target = reinterpret_cast<std::uint8_t*>(resampled_.data());
  const int made =
      swr_convert(resample_, &target, room, const_cast<const std::uint8_t**>(frame.extended_data),
                  frame.nb_samples);
  if (made <= 0) return;
  pack(reinterpret_cast<const std::byte*>(resampled_.data()),
       static_cast<std::size_t>(made) * format_.channels);
  out(pcm_, pts);
}

// `values` interleaved integers (S16, or S32 for 24-bit sound) into pcm_ as carried: 16-bit ones
// as they are, 24-bit ones the top three bytes of their 32 bits, where libavcodec keeps them.
void TsAudioDecoder::pack(const std::byte* in, std::size_t values) {
  const std::size_t width = format_.bits / 8u;
  pcm_.resize(values * width);
  if (width == 2) {
    std::memcpy(pcm_.data(), in, values * 2);
    return;
  }
  for (std::size_t i = 0; i < values; ++i) std::memcpy(&pcm_[i * 3], in + i * 4 + 1, 3);
}

}  // namespace hdstream
