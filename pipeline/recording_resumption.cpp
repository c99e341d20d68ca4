#include "pipeline/recording_resumption.hpp"

#include <cmath>

#include <fmt/format.h>

namespace hdstream {
namespace {

std::string describe(const FeedDescriptor& feed) {
  std::string text =
      fmt::format("{} {}x{} @ {}/{}, {:.1f} Mb/s", to_string(feed.codec), feed.width, feed.height,
                  feed.frame_rate_num, feed.frame_rate_den, feed.bit_rate_bps / 1e6);
  if (feed.audio.present()) {
    text += fmt::format(" with {} x {}-bit sound", feed.audio.channels, feed.audio.bits);
  }
  return text;
}

}  // namespace

std::string recording_break(const FeedDescriptor& recorded, std::uint64_t next_seq_at_break,
                            const Hello& hello, std::chrono::nanoseconds outage) {
  if (hello.feed != recorded) {
    return fmt::format("the feed's format changed ({} to {})", describe(recorded),
                       describe(hello.feed));
  }
  if (hello.first_frame_seq < next_seq_at_break) {
    return fmt::format("the sender started over (frame {} after frame {})", hello.first_frame_seq,
                       next_seq_at_break);
  }
  const double most_frames =
      std::ceil(std::chrono::duration<double>(outage + kResumptionSlack).count() *
                recorded.frames_per_second());
  const std::uint64_t skipped = hello.first_frame_seq - next_seq_at_break;
  if (static_cast<double>(skipped) > most_frames) {
    return fmt::format("the sender skipped {} frames in a {:.1f} s outage", skipped,
                       std::chrono::duration<double>(outage).count());
  }
  return {};
}

}  // namespace hdstream
