// The receiving media path with real libavcodec: decoded pictures match a local decode of the
// same bitstream; a slow sink never blocks the network side nor costs a recording a frame;
// hostile frames are counted.
#include "pipeline/media_feed.hpp"
#include "pipeline/media_sources.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <future>
#include <latch>
#include <memory>
#include <mutex>
#include <semaphore>

#include "common/clock.hpp"
#include "media/file_reader.hpp"
#include "media/plane_hash.hpp"
#include "media/video_decoder.hpp"
#include "pipeline/picture_sink.hpp"
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

// The test's eye on the decode worker: a sink that hands it every decoded picture.
class CallbackSink : public PictureSink {
 public:
  explicit CallbackSink(std::function<void(const Picture&)> on_picture)
      : on_picture_(std::move(on_picture)) {}
  void show(const Picture& picture, const PictureFlags&) override { on_picture_(picture); }

 private:
  std::function<void(const Picture&)> on_picture_;
};

void on_each_picture(MediaOutput& output, std::function<void(const Picture&)> on_picture) {
  output.picture_sinks = [on_picture = std::move(on_picture)](std::uint16_t, const Hello&) {
    return std::vector<std::shared_ptr<PictureSink>>{std::make_shared<CallbackSink>(on_picture)};
  };
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
  output.targets = {{.kind = OutputTarget::Kind::null}};
  output.queue_frames = frames.size();
  on_each_picture(output, [&](const Picture& picture) {
    std::lock_guard lock(mutex);
    received.push_back(picture_hash(picture));
  });
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
  output.targets = {{.kind = OutputTarget::Kind::null}};
  output.queue_frames = 4;
  on_each_picture(output, [&](const Picture&) {
    if (std::exchange(first, false)) {
      first_decoded.count_down();
      release.acquire();  // the sink hangs until the test lets it go
    }
  });
  StreamCounters counters;
  MediaFeed feed(0, dnxhd_hello(), output, counters);
  feed.push(frames[0]);
  first_decoded.wait();  // the worker is now stuck in the sink

  constexpr int kPushed = 200;
  // 200 pushes while the sink hangs (it is released only after them): a push that waited for it
  // would never return, so they must all be done within the deadline, however slow the machine.
  auto pushes = std::async(std::launch::async, [&] {
    for (int i = 1; i <= kPushed; ++i) {
      auto frame = std::make_shared<Frame>();
      frame->seq = static_cast<std::uint64_t>(i);
      frame->data = frames[static_cast<std::size_t>(i % 2)]->data;
      feed.push(std::move(frame));
      EXPECT_LE(counters.decode_queue_depth.load(), 4u);  // memory stays bounded
    }
  });
  const bool done = pushes.wait_for(std::chrono::seconds(60)) == std::future_status::ready;
  if (!done) release.release();  // let the pushes end, so the failure can be reported
  ASSERT_TRUE(done) << "a push waited for the hung sink";
  pushes.get();
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
  output.targets = {{.kind = OutputTarget::Kind::null}};
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
  const auto null = parse_outputs({"null"}, 5, false);
  ASSERT_EQ(null.targets.size(), 1u);
  EXPECT_EQ(null.targets[0].kind, OutputTarget::Kind::null);
  EXPECT_EQ(parse_outputs({"file:/tmp/f{stream}.mov"}, 5, false).targets.at(0).file_pattern,
            "/tmp/f{stream}.mov");
  EXPECT_FALSE(parse_outputs({}, 5, false).decodes());
  EXPECT_THROW(parse_outputs({"file:/tmp/f.mov"}, 5, false), SpecError);  // shared file
  EXPECT_THROW(parse_outputs({"file:/no/such/dir/f{stream}.mov"}, 1, false), SpecError);
  EXPECT_THROW(parse_outputs({"file:/tmp/f.avi"}, 1, false), SpecError);
  EXPECT_THROW(parse_outputs({"file:"}, 1, false), SpecError);
  EXPECT_THROW(parse_outputs({"bogus"}, 1, false), SpecError);
  EXPECT_THROW(parse_outputs({"", "null"}, 1, false), SpecError);
  EXPECT_THROW(parse_outputs({"null"}, 1, true), SpecError);  // --fullscreen needs display
}

TEST(MediaOutputSpec, OutputsCombineAndEachIsNamedOnce) {
  const auto two = parse_outputs({"file:/tmp/a{stream}.mov", "file:/tmp/b{stream}.mkv"}, 2, false);
  ASSERT_EQ(two.targets.size(), 2u);
  EXPECT_EQ(two.targets[1].file_pattern, "/tmp/b{stream}.mkv");
  EXPECT_EQ(two.describe(), "file:/tmp/a{stream}.mov + file:/tmp/b{stream}.mkv");
  try {
    parse_outputs({"file:/tmp/a{stream}.mov", "file:/tmp/a{stream}.mov"}, 2, false);
    ADD_FAILURE() << "the same output twice was accepted";
  } catch (const SpecError& error) {
    EXPECT_STREQ(error.what(), "--output 'file:/tmp/a{stream}.mov' is given twice");
  }
  try {
    parse_outputs({"file:/tmp/a{stream}.mov", "null"}, 2, false);
    ADD_FAILURE() << "null beside a recording was accepted";
  } catch (const SpecError& error) {
    EXPECT_NE(std::string(error.what()).find("cannot go with other outputs"), std::string::npos)
        << error.what();
  }
}

// Screens, the multiview and the program output: shapes checked here, the screens themselves
// when the display layer starts (tests/display/).
TEST(MediaOutputSpec, ScreenSpecsNeedADisplayAndAScreenPerFeed) {
  for (const char* name : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"}) ::unsetenv(name);
  const auto message = [](std::vector<std::string> specs, std::size_t streams,
                          std::string layout = {}) {
    try {
      parse_outputs(specs, streams, false, layout);
    } catch (const SpecError& error) {
      return std::string(error.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message({"multiview"}, 2).find("no display"), std::string::npos);
  ::setenv("QT_QPA_PLATFORM", "offscreen", 1);
  const auto both = parse_outputs({"screen:{stream}", "multiview:1", "program"}, 3, false, "3x1");
  ASSERT_EQ(both.targets.size(), 3u);
  EXPECT_TRUE(both.on_screens());
  EXPECT_EQ(both.targets[0].screen_for(2), 2);
  EXPECT_EQ(both.targets[1].screen_for(0), 1);
  EXPECT_EQ(both.targets[2].kind, OutputTarget::Kind::program);
  EXPECT_EQ(both.targets[2].screen_for(0), 0);
  EXPECT_EQ(both.describe(), "screen:{stream} + multiview:1 + program:0");
  EXPECT_EQ(parse_outputs({"screen:1"}, 1, false).targets[0].screen_for(0), 1);
  EXPECT_NE(message({"screen:1"}, 2).find("2 feeds would share one screen"), std::string::npos);
  for (const char* bad : {"screen:", "screen:x", "screen:-1", "screen:99", "screen:1{stream}x",
                          "multiview:", "multiview:a", "program:1.5", "programme", "multiview2",
                          "screen:-0", "program:+1", "multiview:01x"}) {
    const std::string what = message({bad}, 1);
    EXPECT_NE(what.find("--output '" + std::string(bad) + "': expected"), std::string::npos)
        << bad << ": " << what;
  }
  EXPECT_EQ(message({"multiview", "multiview:1"}, 2), "--output multiview: one per receiver");
  EXPECT_EQ(message({"program:0", "program:1"}, 2), "--output program: one per receiver");
  EXPECT_EQ(message({"null"}, 2, "2x2"), "--layout goes with --output multiview");
  ::unsetenv("QT_QPA_PLATFORM");
}

// A recording's queue holds up to 60 frames and 128 MiB: compressed and SD feeds get 2 s,
// uncompressed 1080 less, and no feed, however large its frames, fewer than 2.
TEST(MediaOutputSpec, TheRecordingQueueIsBoundedInFramesAndBytes) {
  const MediaOutput output;
  const auto feed = [](std::uint16_t width, std::uint16_t height, std::uint64_t bps) {
    return FeedDescriptor{Codec::v210, width, height, 30000, 1001, bps};
  };
  EXPECT_EQ(output.record_queue_for(feed(1920, 1080, 220'000'000)), 60u);  // DNxHD 220: 0.9 MB
  EXPECT_EQ(output.record_queue_for(feed(720, 486, 224'000'000)), 60u);    // sdi270: 0.93 MB
  // Uncompressed 1080 v210 at 1.2 Gbps: 5.0 MB a frame, 26 of them in 128 MiB.
  const auto hd = output.record_queue_for(feed(1920, 1080, 1'193'000'000));
  EXPECT_EQ(hd, 26u);
  EXPECT_LE(static_cast<double>(hd) * 1'193'000'000 / 8 / 29.97, 128.0 * 1024 * 1024);
  EXPECT_EQ(output.record_queue_for(feed(7680, 4320, 40'000'000'000)), 2u);
  EXPECT_EQ(output.record_queue_for(feed(1920, 1080, 0)), 60u);  // rate unknown: frames only
}

// Recording and a display at once: the display's decoder hangs (a stalled window), yet the
// recording takes every frame, byte for byte, and the network side never waits.
TEST(MediaFeed, AStuckDecoderNeverCostsTheRecordingAFrame) {
  const auto dir = test::scratch_dir("media-feed-record-beside-stuck-decoder");
  const auto frames = clip_frames("media-feed-record-source", 3);
  std::binary_semaphore release(0);
  std::latch first_decoded(1);
  bool first = true;
  MediaOutput output;
  output.targets = {
      {.kind = OutputTarget::Kind::file, .file_pattern = (dir / "rec{stream}.mov").string()}};
  output.queue_frames = 2;
  output.record_queue_frames = 64;
  on_each_picture(output, [&](const Picture&) {
    if (std::exchange(first, false)) {
      first_decoded.count_down();
      release.acquire();  // the decode worker hangs until the test lets it go
    }
  });
  StreamCounters counters;
  constexpr int kFrames = 40;
  std::vector<FrameBytes> sent;
  {
    MediaFeed feed(3, dnxhd_hello(), output, counters);
    for (int i = 0; i < kFrames; ++i) {
      auto frame = std::make_shared<Frame>(*frames[static_cast<std::size_t>(i % 3)]);
      frame->seq = static_cast<std::uint64_t>(i);
      sent.push_back(frame->data);
      feed.push(std::move(frame));
      if (i == 0) first_decoded.wait();  // from here on the decoder is stuck
    }
    // The decode queue (2 frames) overflowed while the decoder hung; the recording did not.
    EXPECT_EQ(counters.dropped_before_decode.load(), static_cast<std::uint64_t>(kFrames - 1 - 2));
    release.release();
    feed.finish();
  }
  EXPECT_EQ(counters.frames_recorded.load(), static_cast<std::uint64_t>(kFrames));
  EXPECT_EQ(counters.dropped_before_record.load(), 0u);
  // The file holds every frame exactly as it came.
  FileReader reader((dir / "rec3.mov").string(), test::dnxhd220_feed());
  FrameBytes bytes;
  for (int i = 0; i < kFrames; ++i) {
    reader.read(bytes);
    ASSERT_EQ(bytes, sent[static_cast<std::size_t>(i)]) << "frame " << i;
  }
  EXPECT_EQ(reader.loops(), 0u);
  reader.read(bytes);  // one more read starts the clip over: nothing was recorded twice
  EXPECT_EQ(reader.loops(), 1u);
}

}  // namespace
}  // namespace hdstream
