// Confidence checks on a feed's sound, as a broadcast multiviewer shows them beside every
// picture: peak and RMS level per channel pair (1-2, 3-4, ...) with peak hold, and a silence
// alarm when every channel has stayed below -60 dBFS for `silent_after`.
//   AudioWatch watch(feed.audio);
//   const SoundLevels& levels = watch.observe(pcm, now_ns);   // one frame's samples
#pragma once

#include <chrono>
#include <cstdint>
#include <span>
#include <vector>

#include "protocol/handshake.hpp"
#include "stats/sound_levels.hpp"

namespace hdstream {

struct AudioWatchOptions {
  std::chrono::nanoseconds silent_after = std::chrono::seconds(5);
  std::chrono::nanoseconds peak_hold = std::chrono::seconds(2);
};

// Anything quieter than this is silence (and the floor a level reads down to).
inline constexpr double kSilenceDbfs = -60.0;
inline constexpr double kLevelFloorDbfs = -120.0;

class AudioWatch {
 public:
  explicit AudioWatch(const AudioFormat& format, AudioWatchOptions options = {});

  // The levels of one frame's samples (interleaved PCM in `format`): dBFS of the pair's largest
  // sample and of its RMS (20 log10, so a full-scale sine reads 0 and -3.0), the highest peak of
  // the last `peak_hold`, and whether the sound has been silent for `silent_after`.
  const SoundLevels& observe(std::span<const std::byte> pcm, std::int64_t now_ns);
  // The levels now: a pair at the floor for each channel pair before the first samples.
  const SoundLevels& levels() const { return levels_; }

 private:
  AudioFormat format_;
  AudioWatchOptions options_;
  SoundLevels levels_;
  std::vector<std::int64_t> hold_since_ns_;  // when each pair's held peak was reached
  std::int64_t sound_last_ns_ = 0;           // the last frame louder than kSilenceDbfs
  bool started_ = false;
};

}  // namespace hdstream
