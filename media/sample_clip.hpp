// Makes a test clip on demand: GStreamer videotestsrc frames, encoded to DNxHD with libavcodec
// (or kept raw for v210/UYVY), written with libavformat. The demo and the tests use it so that
// big clips never need to live in git.
//   make_sample_clip("build/media/dnxhd220.mov", dnxhd220.feed, 60);
//   auto path = cached_sample_clip(dnxhd220.feed);   // made once, reused afterwards
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "protocol/handshake.hpp"

namespace hdstream {

// The default pattern scrolls the SMPTE bars by width/60 pixels a frame: a 60-frame clip loops
// without a visible seam, and the picture visibly moves. With a label, "#label" is burned in
// large in the middle (textoverlay), so that an operator tells feeds apart.
std::string scrolling_bars_source(const FeedDescriptor& feed, std::uint64_t frames,
                                  std::optional<int> label = std::nullopt);

// Writes `frames` frames of `source` (a GStreamer description; scrolling bars when empty) to
// `path` in the feed's codec; with `feed.audio`, the sync marker's tone, beeps and flash frames
// too. Throws MediaError.
void make_sample_clip(const std::filesystem::path& path, const FeedDescriptor& feed,
                      std::uint64_t frames, const std::string& source = {});

// The bars clip's sound: a stereo pair, 24-bit.
inline constexpr AudioFormat kBarsSound{2, 24, kAudioSampleRate};

// A 60-frame scrolling-bars clip for `feed` (labelled "#label" when given), with line-up tone
// and the lip-sync marker (media/sync_marker.hpp: a white flash frame and a beep together once
// a second) in kBarsSound; made on first use under $HDSTREAM_MEDIA_CACHE or ~/.cache/hdstream
// (or /tmp/hdstream-media) and reused afterwards.
std::filesystem::path cached_sample_clip(const FeedDescriptor& feed,
                                         std::optional<int> label = std::nullopt);

}  // namespace hdstream
