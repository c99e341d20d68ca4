#include "media/sync_marker.hpp"

#include <cmath>
#include <numbers>

#include "protocol/audio_block.hpp"

namespace hdstream {
namespace {

double full_scale(const AudioFormat& audio) {
  return audio.bits == 16 ? 32767.0 : 8388607.0;
}

}  // namespace

bool is_sync_frame(const FeedDescriptor& feed, std::uint64_t frame) {
  const auto every =
      static_cast<std::uint64_t>(std::max(1.0, std::round(feed.frames_per_second())));
  return frame % every == 0;
}

void append_sync_sound(const FeedDescriptor& feed, std::uint64_t frame,
                       std::vector<std::byte>& out) {
  const AudioFormat& audio = feed.audio;
  const double amplitude = is_sync_frame(feed, frame) ? kBeepAmplitude : kLineUpAmplitude;
  const std::uint64_t first = audio_sample_at(feed, frame);
  const std::uint32_t samples = audio_samples_in_frame(feed, frame);
  const std::size_t width = audio.bits / 8u;
  for (std::uint64_t s = first; s < first + samples; ++s) {
    // 1 kHz at 48 kHz is 48 samples a period, and 30 frames at 29.97 are 48,048 samples (1001
    // periods): a clip of a multiple of 30 frames, as the bars clip's 60, loops without a click.
    const double phase =
        2 * std::numbers::pi * kSyncToneHz * static_cast<double>(s % 48) / audio.sample_rate;
    const auto value =
        static_cast<std::int32_t>(std::lround(amplitude * std::sin(phase) * full_scale(audio)));
    for (int c = 0; c < audio.channels; ++c) {
      for (std::size_t b = 0; b < width; ++b) {
        out.push_back(std::byte(static_cast<std::uint32_t>(value) >> (8 * b)));
      }
    }
  }
}

std::optional<std::uint32_t> beep_onset(std::span<const std::byte> pcm, const AudioFormat& audio) {
  const std::size_t width = audio.bits / 8u, stride = audio.bytes_per_sample();
  if (stride == 0) return std::nullopt;
  const double threshold = kBeepThreshold * full_scale(audio);
  for (std::size_t at = 0, index = 0; at + stride <= pcm.size(); at += stride, ++index) {
    const std::int32_t value = pcm_sample(&pcm[at], width);
    if (std::abs(static_cast<double>(value)) >= threshold) return static_cast<std::uint32_t>(index);
  }
  return std::nullopt;
}

}  // namespace hdstream
