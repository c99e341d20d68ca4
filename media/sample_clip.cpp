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
#include "media/sync_marker.hpp"
#include "media/video_encoder.hpp"
#include "protocol/audio_block.hpp"
#include "protocol/feed_limits.hpp"

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

// A white picture (video white, neutral chroma) in the feed's layout: the sync marker's flash.
// `planes` holds its bytes; the picture points into them.
Picture white_picture(const FeedDescriptor& feed, std::vector<std::vector<std::uint8_t>>& planes) {
  Picture white;
  white.width = feed.width;
  white.height = feed.height;
  if (feed.codec == Codec::dnxhd) {  // what the encoder takes: 8-bit 4:2:2 planes
    white.layout = PixelLayout::yuv422p8;
    white.plane_count = 3;
    planes = {std::vector<std::uint8_t>(std::size_t(feed.width) * feed.height, 235),
              std::vector<std::uint8_t>(std::size_t(feed.width / 2) * feed.height, 128),
              std::vector<std::uint8_t>(std::size_t(feed.width / 2) * feed.height, 128)};
    for (int p = 0; p < 3; ++p) {
      white.stride_bytes[p] = white.row_bytes[p] = p == 0 ? feed.width : feed.width / 2;
      white.rows[p] = feed.height;
    }
  } else {  // packed, as it travels: UYVY, or v210 (Y 940, C 512 in 10 bits)
    white.plane_count = 1;
    planes = {std::vector<std::uint8_t>(raw_frame_bytes(feed))};
    auto& bytes = planes[0];
    if (feed.codec == Codec::uyvy) {
      white.layout = PixelLayout::uyvy422;
      for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = i % 2 ? 235 : 128;
    } else {
      const std::uint32_t words[4] = {
          512u | 940u << 10 | 512u << 20, 940u | 512u << 10 | 940u << 20,
          512u | 940u << 10 | 512u << 20, 940u | 512u << 10 | 940u << 20};
      for (std::size_t i = 0; i + 4 <= bytes.size(); i += 4) {
        const std::uint32_t word = words[i / 4 % 4];
        for (int b = 0; b < 4; ++b) bytes[i + b] = static_cast<std::uint8_t>(word >> (8 * b));
      }
    }
    white.stride_bytes[0] = white.row_bytes[0] = static_cast<int>(bytes.size() / feed.height);
    white.rows[0] = feed.height;
  }
  for (std::size_t p = 0; p < planes.size(); ++p) white.data[p] = planes[p].data();
  return white;
}

// Writes `frames` frames of `description`; with `feed.audio`, the sync marker too (a flash frame
// and a beep once a second, line-up tone between: media/sync_marker.hpp).
void write_clip(const std::filesystem::path& path, const FeedDescriptor& feed, std::uint64_t frames,
                const std::string& description) {
  FeedDescriptor picture_feed = feed;
  picture_feed.audio = {};
  GstFrameSource gst(description, picture_feed);
  std::optional<VideoEncoder> encoder;
  if (feed.codec == Codec::dnxhd) encoder.emplace(picture_feed);
  FileWriter writer(path.string(), feed);
  const bool marker = feed.audio.present();
  std::vector<std::vector<std::uint8_t>> white_planes;
  const Picture white = marker ? white_picture(feed, white_planes) : Picture{};
  std::vector<std::byte> pcm;

  std::mutex mutex;
  std::condition_variable ended;
  bool done = false;
  std::string failure;
  std::int64_t index = 0;
  gst.start(
      [&](const Picture& picture, std::span<const std::byte> packed) {
        try {
          const auto n = static_cast<std::uint64_t>(index);
          const bool flash = marker && is_sync_frame(feed, n);
          const Picture& shown = flash ? white : picture;
          const std::span<const std::byte> raw =
              flash ? std::as_bytes(std::span(white_planes[0])) : packed;
          writer.write(encoder ? encoder->encode(shown) : raw, index++);
          if (marker) {
            pcm.clear();
            append_sync_sound(feed, n, pcm);
            writer.write_audio(pcm, static_cast<std::int64_t>(audio_sample_at(feed, n)));
          }
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

std::filesystem::path cached_sample_clip(const FeedDescriptor& picture_feed,
                                         std::optional<int> label) {
  FeedDescriptor feed = picture_feed;
  feed.audio = kBarsSound;
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
      dir / fmt::format("bars-sync-{}-{}x{}-{}-{}-{}{}.mov", to_string(feed.codec), feed.width,
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
