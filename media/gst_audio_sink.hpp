// Plays a feed's sound through GStreamer: appsrc, a volume (muted while the feed is not heard),
// conversion, then the device's sink. Samples
// are timestamped on the feed's sample clock from the first ones pushed, a playout delay
// (kSoundPlayoutDelay) after they came, so the sink plays them at their pace through the
// network's jitter; sound that never came is pushed as silence of its length by the caller, so
// the sink never stretches. Samples that come later than their time (an outage longer than the
// delay) move the clock on to them, and the pictures' own times steer it each second
// (picture_ready): sound and pictures follow one clock (clock moves counted: resyncs()).
//   GstAudioSink sink("auto", {8, 24, kAudioSampleRate});   // "auto", "null" or an ALSA device
//   sink.play(pcm, first_sample);   // never blocks: two seconds behind, the oldest sound goes
//   sink.play_silence(first_sample, samples);   // a gap: silence of its length
//   sink.finish();                  // plays out what is queued (bounded), then stops
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "protocol/handshake.hpp"

typedef struct _GstElement GstElement;
typedef struct _GstClock GstClock;

namespace hdstream {

// How long the sound trails its picture (picture_ready), and how
// long after they come the first samples play: room for the arrival jitter of paced frames,
// well inside the one frame period (33 ms at 29.97) broadcast allows either way.
inline constexpr std::chrono::milliseconds kSoundPlayoutDelay{10};

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
  // `picture_lead`: how long these samples' picture will take to be ready at least (the
  // pictures queued before it to decode): samples later than their time move the clock on so
  // that they play that much and a delay from now, with their picture.
  void play(std::span<const std::byte> pcm, std::uint64_t first_sample,
            std::chrono::nanoseconds picture_lead = {});
  // Sound that never came: `samples` of silence from `first_sample` on, at its own time (a sink
  // skips what is already late; the clock never moves for silence).
  void play_silence(std::uint64_t first_sample, std::uint64_t samples);
  // End of the sound: waits (at most 1.2 s: the queue's second and the delay) for the sink to
  // play it.
  void finish();

  // Samples handed on to the device's sink, in the feed's format (at their time, on a clocked
  // sink; before the device's own conversion).
  std::uint64_t samples_played() const { return played_.load(std::memory_order_relaxed); }
  // Whether the device hears this feed (the program output's sound follows its cut): a feed
  // not heard plays on at its time, muted, so that it is in step when it is cut to.
  void set_heard(bool heard);
  // Of samples_played(), those that reached the sink as sound (not muted, not silence).
  std::uint64_t samples_heard() const { return heard_.load(std::memory_order_relaxed); }
  // When sample `sample` (on the feed's sample clock, already pushed) reaches the sink, on
  // steady_clock_ns(): its time in the pipeline plus the pipeline's latency. None before the
  // first samples or without a clock.
  std::optional<std::int64_t> plays_at_ns(std::uint64_t sample) const;
  // The picture of the frame whose sound starts at `sample` was decoded at `ready_ns` (steady
  // clock); the caller shows it kSoundPlayoutDelay before its sound plays (plays_at_ns), or at
  // once if it is later than that. After the first half second of pictures, then over each
  // second, the sound's clock is steered so that the latest-ready picture would have been ready
  // a 10 ms margin ahead: later at once when one was more than 5 ms late (it would have been
  // shown behind its sound), earlier when all had more than 30 ms to spare (less latency), and
  // not at all between (a decoder's ordinary jitter). The pictures' own path (network, decode
  // queue, decode) sets when the sound plays, and the pictures wait for it: both follow one
  // clock.
  void picture_ready(std::uint64_t sample, std::int64_t ready_ns);
  std::uint64_t resyncs() const { return resyncs_; }
  // What the sink is: "autoaudiosink", "fakesink (no sound device)", "alsasink hw:1,0".
  const std::string& description() const { return description_; }

 private:
  AudioFormat format_;
  std::string description_;
  GstElement* pipeline_ = nullptr;
  GstElement* appsrc_ = nullptr;
  GstClock* clock_ = nullptr;  // the pipeline's: the system clock
  void push(std::span<const std::byte> pcm, std::uint64_t first_sample);
  // The first samples set the clock: `first_sample` plays a delay from `now`.
  void anchor(std::uint64_t first_sample, std::uint64_t now);
  void not_beyond_a_second(std::uint64_t first_sample, std::uint64_t now);
  std::int64_t plays_at_locked(std::uint64_t sample) const;
  std::uint64_t running_time_ns() const;              // the pipeline's now
  std::uint64_t time_of(std::uint64_t sample) const;  // a sample's running time

  std::optional<std::uint64_t> first_sample_;  // the sample clock's origin
  std::uint64_t origin_ns_ = 0;                // its running time
  std::uint64_t resyncs_ = 0;
  // Steering (picture_ready): the least room a picture of this second had before its time.
  static constexpr int kSteerFrames = 30;
  std::int64_t steer_room_ns_ = 0;
  int steer_frames_ = 0;
  bool steered_ = false;                 // the first half second's correction was made
  mutable std::int64_t latency_ns_ = 0;  // the pipeline's, asked once a second
  mutable std::int64_t latency_asked_ns_ = 0;
  mutable std::mutex mutex_;  // play() on the network strand, picture_ready() on the decoder's
  std::vector<std::byte> silence_;
  // What was pushed lately and when it plays: a clock move changes the times of what comes
  // next, not of what is queued, and the pictures must wait for the sound as it will play.
  struct Pushed {
    std::uint64_t first_sample = 0;
    std::uint64_t samples = 0;
    std::uint64_t pts = 0;
  };
  // 17 s of frames: more than any decode queue holds, with the gaps' silences between.
  static constexpr std::size_t kPushesKept = 512;
  std::deque<Pushed> pushed_;
  bool finished_ = false;
  std::atomic<std::uint64_t> played_{0};
  std::atomic<std::uint64_t> heard_{0};
};

}  // namespace hdstream
