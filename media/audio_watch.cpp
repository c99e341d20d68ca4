#include "media/audio_watch.hpp"

#include <algorithm>
#include <cmath>

#include "protocol/audio_block.hpp"

namespace hdstream {

static_assert(kMaxSoundChannels == kMaxAudioChannels, "the stats' sound limit is the wire's");
namespace {

double dbfs(double ratio) {
  return ratio > 0 ? std::max(kLevelFloorDbfs, 20 * std::log10(ratio)) : kLevelFloorDbfs;
}

}  // namespace

AudioWatch::AudioWatch(const AudioFormat& format, AudioWatchOptions options)
    : format_(format), options_(options) {
  const std::size_t pairs = (format.channels + 1u) / 2;
  levels_.pairs.resize(pairs);
  hold_since_ns_.assign(pairs, 0);
}

const SoundLevels& AudioWatch::observe(std::span<const std::byte> pcm, std::int64_t now_ns) {
  const std::size_t width = format_.bits / 8u, stride = format_.bytes_per_sample();
  const double full_scale = format_.bits == 16 ? 32768.0 : 8388608.0;
  const std::size_t pairs = levels_.pairs.size();
  std::vector<double> peak(pairs, 0), squares(pairs, 0);
  std::vector<std::size_t> count(pairs, 0);
  for (std::size_t at = 0; stride > 0 && at + stride <= pcm.size(); at += stride) {
    for (std::size_t c = 0; c < format_.channels; ++c) {
      const double value = pcm_sample(&pcm[at + c * width], width);
      const std::size_t pair = c / 2;
      peak[pair] = std::max(peak[pair], std::abs(value));
      squares[pair] += value * value;
      ++count[pair];
    }
  }
  bool loud = false;
  for (std::size_t p = 0; p < pairs; ++p) {
    PairLevels& level = levels_.pairs[p];
    level.peak_dbfs = dbfs(peak[p] / full_scale);
    level.rms_dbfs =
        count[p] ? dbfs(std::sqrt(squares[p] / count[p]) / full_scale) : kLevelFloorDbfs;
    if (level.peak_dbfs >= level.hold_dbfs ||
        now_ns - hold_since_ns_[p] > options_.peak_hold.count()) {
      level.hold_dbfs = level.peak_dbfs;
      hold_since_ns_[p] = now_ns;
    }
    loud |= level.peak_dbfs >= kSilenceDbfs;
  }
  if (!started_ || loud) sound_last_ns_ = now_ns;
  started_ = true;
  levels_.silent = now_ns - sound_last_ns_ >= options_.silent_after.count();
  return levels_;
}

}  // namespace hdstream
