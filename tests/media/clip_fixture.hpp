// Small DNxHD clips made on demand for tests (never committed): 1280x720 is not a DNxHD 220
// size, so tests use 1920x1080 frames, few of them.
//   auto clip = test::dnxhd_clip(dir, 12);   // path of a 12-frame DNxHD 220 .mov
#pragma once

#include <filesystem>

#include <unistd.h>

#include "media/sample_clip.hpp"
#include "protocol/handshake.hpp"

namespace hdstream::test {

inline FeedDescriptor dnxhd220_feed() {
  return FeedDescriptor{Codec::dnxhd, 1920, 1080, 30000, 1001, 219'980'979};
}

inline std::filesystem::path dnxhd_clip(const std::filesystem::path& dir, std::uint64_t frames) {
  const auto path = dir / ("dnxhd-" + std::to_string(frames) + ".mov");
  if (std::filesystem::exists(path)) return path;
  std::filesystem::create_directories(dir);  // a fresh build tree has no cache yet
  // Tests in other processes may want the same clip: write beside it, then rename atomically.
  const auto partial = path.string() + "." + std::to_string(::getpid()) + ".partial.mov";
  make_sample_clip(partial, dnxhd220_feed(), frames);
  std::filesystem::rename(partial, path);
  return path;
}

}  // namespace hdstream::test
