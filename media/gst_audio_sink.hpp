// Plays a feed's sound through GStreamer: appsrc, conversion, then the device's sink. Samples
// are timestamped on the feed's sample clock from the first ones pushed, a playout delay after
// they came, so the sink plays them at their pace whatever the network's jitter; sound that
// never came is pushed as silence of its length by the caller, so the sink never stretches.
//   GstAudioSink sink("auto", {8, 24, kAudioSampleRate});   // "auto", "null" or an ALSA device
//   sink.play(pcm, first_sample);   // never blocks: a second behind, the oldest sound goes
//   sink.finish();                  // plays out what is queued (bounded), then stops
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "protocol/handshake.hpp"

typedef struct _GstElement GstElement;

namespace hdstream {

class GstAudioSink {
 public:
  // `device`: "auto" (the system's default sink: autoaudiosink; where none opens, played nowhere,
  // said once in the log), "null" (a clocked fakesink: played in real time, heard nowhere), or
  // an ALSA device ("default", "hw:1,0"). Throws MediaError when a named device cannot open.
  GstAudioSink(const std::string& device, const AudioFormat& format);
  ~GstAudioSink();
  GstAudioSink(const GstAudioSink&) = delete;
  GstAudioSink& operator=(const GstAudioSink&) = delete;

  // Queues interleaved PCM whose first sample is `first_sample` on the feed's sample clock.
  void play(std::span<const std::byte> pcm, std::uint64_t first_sample);
  // End of the sound: waits (at most the queue's length and a second) for the sink to play it.
  void finish();

  // Samples the sink has rendered (reached it, at their time on a clocked sink).
  std::uint64_t samples_played() const { return played_.load(std::memory_order_relaxed); }
  // What the sink is: "autoaudiosink", "fakesink (no sound device)", "alsasink hw:1,0".
  const std::string& description() const { return description_; }

 private:
  AudioFormat format_;
  std::string description_;
  GstElement* pipeline_ = nullptr;
  GstElement* appsrc_ = nullptr;
  std::optional<std::uint64_t> first_sample_;  // the sample clock's origin
  std::uint64_t origin_ns_ = 0;                // its running time
  bool finished_ = false;
  std::atomic<std::uint64_t> played_{0};
};

}  // namespace hdstream
