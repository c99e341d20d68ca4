// The lip-sync marker of the `bars` clip, as broadcast sync tests make it: once a second a white
// flash frame and, on the same frame, a beep; in between, line-up tone. The sender's clip is made
// with it (media/sample_clip) and the receiver finds both halves at its outputs to measure the
// A/V offset (pipeline/media_feed.cpp).
//   if (is_sync_frame(feed, n)) ...;             // frame n carries the flash and the beep
//   append_sync_sound(feed, n, pcm);             // frame n's samples: tone, or the beep
//   auto at = beep_onset(pcm, feed.audio);       // first sample of a beep in these samples
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "protocol/handshake.hpp"

namespace hdstream {

inline constexpr double kSyncToneHz = 1000;
inline constexpr double kLineUpAmplitude = 0.1;  // -20 dBFS: the tone between beeps
inline constexpr double kBeepAmplitude = 0.5;    // -6 dBFS: the beep
// A sample at or above this (-12 dBFS) is the beep's; the line-up tone never reaches it.
inline constexpr double kBeepThreshold = 0.25;

// Frame n is a sync frame once a second: every round(fps) frames from frame 0.
bool is_sync_frame(const FeedDescriptor& feed, std::uint64_t frame);

// Appends frame n's sound (feed.audio: 16 or 24-bit, every channel alike): the beep on a sync
// frame, line-up tone otherwise; continuous across frames (phase from the sample clock).
void append_sync_sound(const FeedDescriptor& feed, std::uint64_t frame,
                       std::vector<std::byte>& out);

// The index (in samples) of the first sample of channel 0 at or above kBeepThreshold.
std::optional<std::uint32_t> beep_onset(std::span<const std::byte> pcm, const AudioFormat& audio);

}  // namespace hdstream
