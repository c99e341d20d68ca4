// Clips made on demand for tests (never committed), few frames each: DNxHD 220 (1280x720 is
// not a DNxHD 220 size, so 1920x1080) and the uncompressed HD formats.
//   auto clip = test::dnxhd_clip(dir, 12);   // path of a 12-frame DNxHD 220 .mov
//   auto raw = test::clip(dir, test::uyvy1080_feed(), 30);   // 30 raw UYVY frames (124 MB)
#pragma once

#include <filesystem>

#include <unistd.h>

#include "media/sample_clip.hpp"
#include "protocol/handshake.hpp"

namespace hdstream::test {

inline FeedDescriptor dnxhd220_feed() {
  return FeedDescriptor{Codec::dnxhd, 1920, 1080, 30000, 1001, 219'980'979};
}

// The uncompressed HD presets (presets/hdstream.toml): 8-bit UYVY at 29.97 (4,147,200 bytes a
// frame) and 10-bit v210 at 59.94 (5,529,600 bytes a frame).
inline FeedDescriptor uyvy1080_feed() {
  return FeedDescriptor{Codec::uyvy, 1920, 1080, 30000, 1001, 994'333'666};
}
inline FeedDescriptor v210_1080p60_feed() {
  return FeedDescriptor{Codec::v210, 1920, 1080, 60000, 1001, 2'651'556'444};
}

// A clip of `frames` scrolling-bars frames in `feed`'s codec, made once under `dir`.
inline std::filesystem::path clip(const std::filesystem::path& dir, const FeedDescriptor& feed,
                                  std::uint64_t frames) {
  const auto path =
      dir / (std::string(to_string(feed.codec)) + "-" + std::to_string(feed.width) + "x" +
             std::to_string(feed.height) + "-" + std::to_string(feed.frame_rate_num) + "-" +
             std::to_string(frames) + ".mov");
  if (std::filesystem::exists(path)) return path;
  std::filesystem::create_directories(dir);  // a fresh build tree has no cache yet
  // Tests in other processes may want the same clip: write beside it, then rename atomically.
  const auto partial = path.string() + "." + std::to_string(::getpid()) + ".partial.mov";
  try {
    make_sample_clip(partial, feed, frames);
  } catch (...) {
    std::filesystem::remove(partial);
    throw;
  }
  std::filesystem::rename(partial, path);
  return path;
}

inline std::filesystem::path dnxhd_clip(const std::filesystem::path& dir, std::uint64_t frames) {
  return clip(dir, dnxhd220_feed(), frames);
}

}  // namespace hdstream::test
