// A feed's sound levels as the receiver last measured them (media/audio_watch): what the media
// line, /metrics, the panel and the multiview show. Plain data.
#pragma once

#include <vector>

namespace hdstream {

// The most channels a feed's sound has (protocol/handshake.hpp's kMaxAudioChannels, which
// media/audio_watch.cpp checks this against): a level per pair of them.
inline constexpr unsigned kMaxSoundChannels = 16;

struct PairLevels {
  double peak_dbfs = -120;  // the pair's largest sample in the last frame
  double rms_dbfs = -120;   // its RMS over the last frame (a full-scale sine: -3.0)
  double hold_dbfs = -120;  // the highest peak of the last 2 s
  bool operator==(const PairLevels&) const = default;
};

struct SoundLevels {
  std::vector<PairLevels> pairs;  // channels 1-2, 3-4, ...; a last odd channel is a pair alone
  bool silent = false;            // every channel below -60 dBFS for the alarm's time
  bool operator==(const SoundLevels&) const = default;
};

}  // namespace hdstream
