#include "media/sample_clip.hpp"

#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <optional>

#include <fmt/format.h>
#include <unistd.h>

#include "common/log.hpp"
#include "media/file_writer.hpp"
#include "media/gst_frame_source.hpp"
#include "media/media_error.hpp"
#include "media/video_encoder.hpp"

namespace hdstream {

std::string scrolling_bars_source(const FeedDescriptor& feed, std::uint64_t frames,
                                  std::optional<int> label) {
  std::string source = fmt::format("videotestsrc pattern=smpte horizontal-speed={} num-buffers={}",
                                   std::max(1, feed.width / 60), frames);
  if (label) {
    // The feed's number, large and boxed, in the middle of the picture.
    source += fmt::format(
        " ! textoverlay text=\"#{}\" font-desc=\"Sans Bold {}\" valignment=center "
        "halignment=center shaded-background=true",
        *label, std::max(8, feed.height / 10));
  }
  return source;
}

namespace {

void write_clip(const std::filesystem::path& path, const FeedDescriptor& feed, std::uint64_t frames,
                const std::string& description) {
  GstFrameSource gst(description, feed);
  std::optional<VideoEncoder> encoder;
  if (feed.codec == Codec::dnxhd) encoder.emplace(feed);
  FileWriter writer(path.string(), feed);

  std::mutex mutex;
  std::condition_variable ended;
  bool done = false;
  std::string failure;
  std::int64_t index = 0;
  gst.start(
      [&](const Picture& picture, std::span<const std::byte> packed) {
        try {
          writer.write(encoder ? encoder->encode(picture) : packed, index++);
          return true;
        } catch (const MediaError& error) {
          std::lock_guard lock(mutex);
          failure = error.what();
          return false;
        }
      },
      [&](const std::string&) {
        std::lock_guard lock(mutex);
        done = true;
        ended.notify_all();
      });
  {
    std::unique_lock lock(mutex);
    ended.wait(lock, [&] { return done; });
  }
  gst.stop();
  if (!failure.empty()) throw MediaError(failure);
  writer.finish();
  if (static_cast<std::uint64_t>(index) != frames) {
    throw MediaError(fmt::format("sample clip '{}': the source gave {} of {} frames", path.string(),
                                 index, frames));
  }
}

}  // namespace

void make_sample_clip(const std::filesystem::path& path, const FeedDescriptor& feed,
                      std::uint64_t frames, const std::string& source) {
  write_clip(path, feed, frames,
             source.empty() ? scrolling_bars_source(feed, frames)
                            : fmt::format("{} num-buffers={}", source, frames));
}

std::filesystem::path cached_sample_clip(const FeedDescriptor& feed, std::optional<int> label) {
  std::filesystem::path dir;
  if (const char* env = std::getenv("HDSTREAM_MEDIA_CACHE"); env && *env) {
    dir = env;
  } else if (const char* home = std::getenv("HOME"); home && *home) {
    dir = std::filesystem::path(home) / ".cache" / "hdstream";
  } else {
    dir = "/tmp/hdstream-media";
  }
  std::filesystem::create_directories(dir);
  const auto path =
      dir / fmt::format("bars-{}-{}x{}-{}-{}-{}{}.mov", to_string(feed.codec), feed.width,
                        feed.height, feed.frame_rate_num, feed.frame_rate_den, feed.bit_rate_bps,
                        label ? fmt::format("-feed{}", *label) : std::string());
  if (std::filesystem::exists(path)) return path;
  logger("media")->info("making sample clip {} (once; reused afterwards)", path.string());
  // Write beside, then rename: a half-written clip is never mistaken for a finished one.
  const auto partial = path.string() + fmt::format(".{}.partial.mov", ::getpid());
  constexpr std::uint64_t kFrames = 60;
  write_clip(partial, feed, kFrames, scrolling_bars_source(feed, kFrames, label));
  std::filesystem::rename(partial, path);
  return path;
}

}  // namespace hdstream
