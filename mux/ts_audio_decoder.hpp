// An incoming TS's sound as hdstream's PCM (protocol/audio_block.hpp's layout): whatever
// libavcodec decodes (SMPTE 302M as carried, AAC, MPEG audio, AC-3), as interleaved
// little-endian integers at 48 kHz, 16-bit where the stream is 16-bit, else 24-bit. 302M at
// 48 kHz is passed through sample for sample; anything else goes through libswresample.
//   TsAudioDecoder sound(*format->streams[audio]);     // throws MediaError
//   sound.decode(*packet, [&](std::span<const std::byte> pcm, std::int64_t pts) { ... });
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "protocol/handshake.hpp"

struct AVCodecContext;
struct AVFrame;
struct AVPacket;
struct AVStream;
struct SwrContext;

namespace hdstream {

class TsAudioDecoder {
 public:
  // Throws MediaError: no decoder, more than kMaxAudioChannels channels, or it does not open.
  explicit TsAudioDecoder(const AVStream& stream);
  ~TsAudioDecoder();
  TsAudioDecoder(const TsAudioDecoder&) = delete;
  TsAudioDecoder& operator=(const TsAudioDecoder&) = delete;

  const AudioFormat& format() const { return format_; }
  const char* codec_name() const;

  // `pcm` (whole sample frames in format()) and its first sample's PTS in the stream's time base
  // (AV_NOPTS_VALUE when the TS gave none).
  using Samples = std::function<void(std::span<const std::byte> pcm, std::int64_t pts)>;
  // Decodes one packet of the stream. False when libavcodec refused it (its sound is lost).
  bool decode(const AVPacket& packet, const Samples& out);

 private:
  void convert(const AVFrame& frame, const Samples& out);
  void pack(const std::byte* in, std::size_t values);

  AudioFormat format_;
  AVCodecContext* decoder_ = nullptr;
  AVFrame* frame_ = nullptr;
  // What the resampler was made for: rebuilt when a frame differs.
  struct Input {
    int format = -1, rate = 0, channels = 0;
    std::uint64_t mask = 0;
    bool operator==(const Input&) const = default;
  };
  SwrContext* resample_ = nullptr;  // for what is not already 48 kHz interleaved integers
  Input resample_from_;
  std::vector<std::byte> pcm_;
  std::vector<std::int32_t> resampled_;
};

}  // namespace hdstream
