// A few pictures a second of every decoded feed, downscaled for the operator's panel (in
// process) and for `hdstream monitor` on another host (GET /thumbnail?feed=K, a JPEG). Each feed's
// sink runs on its decode worker, scales at most one picture per `interval` (one libswscale pass,
// 1080 -> 128x72) and swaps it in; readers copy the latest one. Qt-free: a headless receiver
// serves them too.
//   Thumbnails thumbnails(streams);
//   media.add_picture_sinks(thumbnails.sink_factory());           // before the receivers start
//   std::optional<Thumbnail> t = thumbnails.latest(stream);       // any thread
//   std::optional<std::string> jpeg = thumbnails.jpeg(stream);    // any thread
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "media/jpeg_encoder.hpp"
#include "pipeline/media_output.hpp"

namespace hdstream {

struct Thumbnail {
  int width = 0;  // fitted into the board's box with the picture's aspect kept, even
  int height = 0;
  std::vector<std::uint8_t> bgra;  // width x height, rows width * 4 bytes apart
  std::uint64_t seq = 0;           // thumbnails made of this feed so far (1 for the first)
  std::int64_t made_ns = 0;        // steady clock
};

struct ThumbnailOptions {
  int max_width = 128;
  int max_height = 72;
  std::chrono::nanoseconds interval = std::chrono::milliseconds(200);  // 5 a second at most
};

class Thumbnails {
 public:
  explicit Thumbnails(std::size_t streams, ThumbnailOptions options = {});
  ~Thumbnails();
  Thumbnails(const Thumbnails&) = delete;
  Thumbnails& operator=(const Thumbnails&) = delete;

  // A new sink for each session of a feed (MediaOutput::picture_sinks); the board outlives none
  // of them: sinks share its slots.
  MediaOutput::SinkFactory sink_factory();

  // The latest thumbnail of `stream`; none before its first picture or for a stream not served.
  std::optional<Thumbnail> latest(std::uint16_t stream) const;
  // The same as a JPEG, encoded on the first request after each new thumbnail. Throws
  // MediaError when libavcodec cannot encode it.
  std::optional<std::string> jpeg(std::uint16_t stream);
  // For tests: JPEGs encoded so far (the others were the cached one).
  std::uint64_t jpegs_made_for_test() const;

  // A picture's thumbnail size: fitted into max_width x max_height with the picture's display
  // aspect kept (SD is 4:3), both sides even.
  static std::pair<int, int> fitted(int width, int height, const ThumbnailOptions& options);

 private:
  struct Slot;
  class Sink;

  ThumbnailOptions options_;
  std::vector<std::shared_ptr<Slot>> slots_;  // by stream
  mutable std::mutex jpeg_mutex_;
  JpegEncoder jpeg_encoder_;
  std::uint64_t jpegs_made_ = 0;
};

}  // namespace hdstream
