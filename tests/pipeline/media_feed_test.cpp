// The receiving media path with real libavcodec: decoded pictures match a local decode of the
// same bitstream; a slow sink never blocks the network side; hostile frames are counted.
#include "pipeline/media_feed.hpp"
#include "pipeline/media_sources.hpp"

#include <gtest/gtest.h>

#include <latch>
#include <mutex>
#include <semaphore>

#include "common/clock.hpp"
#include "media/file_reader.hpp"
#include "media/plane_hash.hpp"
#include "media/video_decoder.hpp"
#include "tests/media/clip_fixture.hpp"
#include "tests/support/process.hpp"

namespace hdstream {
namespace {

std::vector<FramePtr> clip_frames(const std::string& name, int count) {
  auto dir = test::scratch_dir(name);
  FileReader reader(test::dnxhd_clip(dir, static_cast<std::uint64_t>(count)).string(),
                    test::dnxhd220_feed());
  std::vector<FramePtr> frames;
  for (int i = 0; i < count; ++i) {
    auto frame = std::make_shared<Frame>();
    reader.read(frame->data);
    frame->seq = static_cast<std::uint64_t>(i);
    frame->ready_ns = wall_clock_ns();
    frames.push_back(frame);
  }
  return frames;
}

Hello dnxhd_hello() {
  Hello hello;
  hello.feed = test::dnxhd220_feed();
  return hello;
}

TEST(MediaFeed, DecodedPicturesMatchALocalDecodeOfTheSameFrames) {
  const auto frames = clip_frames("media-feed-exact", 6);
  std::vector<std::uint64_t> local;
  VideoDecoder decoder(test::dnxhd220_feed());
  for (const auto& frame : frames) local.push_back(picture_hash(decoder.decode(frame->data)));

  std::mutex mutex;
  std::vector<std::uint64_t> received;
  MediaOutput output;
  output.kind = MediaOutput::Kind::null;
  output.queue_frames = frames.size();
  output.on_picture = [&](const Frame&, const Picture& picture) {
    std::lock_guard lock(mutex);
    received.push_back(picture_hash(picture));
  };
  StreamCounters counters;
  {
    MediaFeed feed(0, dnxhd_hello(), output, counters);
    for (const auto& frame : frames) feed.push(frame);
    feed.finish();
  }
  EXPECT_EQ(received, local);
  EXPECT_EQ(counters.frames_decoded.load(), frames.size());
  EXPECT_EQ(counters.decode_errors.load(), 0u);
  EXPECT_EQ(counters.dropped_before_decode.load(), 0u);
  EXPECT_EQ(counters.decode_latency.summary().frames, frames.size());
  EXPECT_GT(counters.decode_latency.summary().p99_ms, 0.0);
}

TEST(MediaFeed, ASlowSinkNeverBlocksPushAndEveryDropIsCounted) {
  const auto frames = clip_frames("media-feed-slow", 2);
  std::binary_semaphore release(0);
  std::latch first_decoded(1);
  bool first = true;
  MediaOutput output;
  output.kind = MediaOutput::Kind::null;
  output.queue_frames = 4;
  output.on_picture = [&](const Frame&, const Picture&) {
    if (std::exchange(first, false)) {
      first_decoded.count_down();
      release.acquire();  // the sink hangs until the test lets it go
    }
  };
  StreamCounters counters;
  MediaFeed feed(0, dnxhd_hello(), output, counters);
  feed.push(frames[0]);
  first_decoded.wait();  // the worker is now stuck in the sink

  constexpr int kPushed = 200;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 1; i <= kPushed; ++i) {
    auto frame = std::make_shared<Frame>(*frames[static_cast<std::size_t>(i % 2)]);
    frame->seq = static_cast<std::uint64_t>(i);
    feed.push(std::move(frame));
    EXPECT_LE(counters.decode_queue_depth.load(), 4u);  // memory stays bounded
  }
  // 200 pushes while the sink hangs: none waited for it (generous bound for a loaded machine).
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  EXPECT_EQ(counters.dropped_before_decode.load(), static_cast<std::uint64_t>(kPushed - 4));
  EXPECT_EQ(counters.drops.load(), counters.dropped_before_decode.load());

  release.release();
  feed.finish();
  EXPECT_EQ(counters.frames_decoded.load(), 1u + 4u);  // the stuck one, then the 4 newest
  EXPECT_EQ(counters.decode_queue_depth.load(), 0u);
}

TEST(MediaFeed, TruncatedAndGarbageFramesAreCountedDecodeErrors) {
  const auto frames = clip_frames("media-feed-hostile", 1);
  MediaOutput output;
  output.kind = MediaOutput::Kind::null;
  output.queue_frames = 8;
  StreamCounters counters;
  MediaFeed feed(0, dnxhd_hello(), output, counters);
  auto truncated = std::make_shared<Frame>(*frames[0]);
  truncated->data.resize(5000);
  auto garbage = std::make_shared<Frame>(*frames[0]);
  for (auto& byte : garbage->data) byte = std::byte{0xa5};
  auto empty = std::make_shared<Frame>();
  feed.push(truncated);
  feed.push(garbage);
  feed.push(empty);
  feed.push(frames[0]);
  feed.finish();
  EXPECT_EQ(counters.decode_errors.load(), 3u);
  EXPECT_EQ(counters.frames_decoded.load(), 1u);
}

TEST(MediaOutputSpec, BadSpecsAreOneLineErrors) {
  EXPECT_EQ(parse_output("null", 5, false).kind, MediaOutput::Kind::null);
  EXPECT_EQ(parse_output("file:/tmp/f{stream}.mov", 5, false).file_pattern, "/tmp/f{stream}.mov");
  EXPECT_THROW(parse_output("file:/tmp/f.mov", 5, false), SpecError);  // shared file
  EXPECT_THROW(parse_output("file:/no/such/dir/f{stream}.mov", 1, false), SpecError);
  EXPECT_THROW(parse_output("file:/tmp/f.avi", 1, false), SpecError);
  EXPECT_THROW(parse_output("bogus", 1, false), SpecError);
  EXPECT_THROW(parse_output("null", 1, true), SpecError);  // --fullscreen needs display
}

}  // namespace
}  // namespace hdstream
