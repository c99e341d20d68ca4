// A feed's sound for `--mux ts`: its PCM as SMPTE 302M (libavcodec's s302m, the samples as
// carried, one packet per frame) or AAC-LC (libavcodec's aac, 1024-sample packets, through an
// AVAudioFifo), packets timestamped on the feed's sample clock (time base 1/48000).
//   TsAudioEncoder audio(feed.audio, TsAudio::s302m);          // throws MediaError
//   avcodec_parameters_from_context(stream->codecpar, audio.context());
//   audio.encode(block.pcm, block.first_sample, [&](AVPacket& p) { write(p); });
//   audio.finish([&](AVPacket& p) { write(p); });
#pragma once

#include <cstdint>
#include <functional>
#include <span>

#include "mux/ts_audio.hpp"
#include "protocol/handshake.hpp"

struct AVAudioFifo;
struct AVCodecContext;
struct AVFrame;
struct AVPacket;
struct SwrContext;

namespace hdstream {

class TsAudioEncoder {
 public:
  using Packets = std::function<void(AVPacket&)>;

  // Throws MediaError when libavcodec cannot encode this sound as `codec` (ts_audio_problem()
  // names the cases a user can meet).
  TsAudioEncoder(const AudioFormat& audio, TsAudio codec);
  ~TsAudioEncoder();
  TsAudioEncoder(const TsAudioEncoder&) = delete;
  TsAudioEncoder& operator=(const TsAudioEncoder&) = delete;

  const AVCodecContext* context() const { return encoder_; }

  // Encodes interleaved PCM (whole sample frames in the feed's format) whose first sample is
  // `first_sample`; hands each packet made to `out`. Throws MediaError.
  void encode(std::span<const std::byte> pcm, std::uint64_t first_sample, const Packets& out);
  // What the encoder still holds (AAC: the last partial packet, padded). Throws MediaError.
  void finish(const Packets& out);

 private:
  void unpack(std::span<const std::byte> pcm);  // into input_, as the encoder's integers
  void send(AVFrame* frame, const Packets& out);
  void encode_fifo(int samples, const Packets& out);
  void queue_silence(int samples, const Packets& out);
  void release();

  AudioFormat audio_;
  AVCodecContext* encoder_ = nullptr;
  AVFrame* input_ = nullptr;   // the PCM as S16/S32 interleaved
  AVFrame* chunk_ = nullptr;   // AAC: one packet's samples from the fifo
  AVFrame* planar_ = nullptr;  // and as float planar
  AVPacket* packet_ = nullptr;
  AVAudioFifo* fifo_ = nullptr;  // AAC: samples waiting for a whole packet
  SwrContext* convert_ = nullptr;
  std::int64_t fifo_pts_ = 0;      // AAC: the sample clock of the fifo's first sample
  std::uint64_t next_sample_ = 0;  // after the last sample encoded
};

}  // namespace hdstream
