#include "protocol/feed_limits.hpp"

#include <algorithm>
#include <cmath>

#include "protocol/audio_block.hpp"

namespace hdstream {

std::size_t raw_frame_bytes(const FeedDescriptor& feed) {
  const std::size_t width = feed.width, height = feed.height;
  if (feed.codec == Codec::v210) return (width + 47) / 48 * 128 * height;
  if (feed.codec == Codec::uyvy) return width * 2 * height;
  return 0;
}

std::size_t planned_frame_bytes(const FeedDescriptor& feed) {
  const double fps = feed.frames_per_second();
  if (fps <= 0) return 0;
  const auto average =
      static_cast<std::size_t>(std::llround(static_cast<double>(feed.bit_rate_bps) / 8.0 / fps));
  return feed.codec == Codec::synthetic ? average : kCompressedFrameMargin * average;
}

std::uint32_t max_frame_bytes(const Hello& hello) {
  // Frames need at most kMaxChunksPerFrame chunks of the announced size (64-bit: no overflow).
  const std::uint64_t ceiling = std::min<std::uint64_t>(
      kMaxFrameBytes, std::uint64_t{kMaxChunksPerFrame} * hello.chunk_bytes);
  std::uint64_t bound = raw_frame_bytes(hello.feed);
  if (bound != 0) {
    bound += max_audio_block_bytes(hello.feed);  // a raw picture and the most sound a frame has
  } else {
    const double fps = hello.feed.frames_per_second();
    // The same expression senders size synthetic frames with (frame_bytes_for), rounded up: a
    // sender's frame is never a byte above it. In double: rate x den overflows 64 bits.
    const double average = fps > 0 ? static_cast<double>(hello.feed.bit_rate_bps) / 8.0 / fps
                                   : static_cast<double>(kMaxFrameBytes);
    const double margin = hello.feed.codec == Codec::synthetic ? 1.0 : kCompressedFrameMargin;
    const double needed = std::ceil(average * margin);
    bound = needed >= static_cast<double>(ceiling) ? ceiling : static_cast<std::uint64_t>(needed);
    bound = std::max<std::uint64_t>(bound, kMinFrameBytesBound);
  }
  return static_cast<std::uint32_t>(std::min(bound, ceiling));
}

}  // namespace hdstream
