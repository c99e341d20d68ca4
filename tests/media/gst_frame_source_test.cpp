// GStreamer capture through appsink, forced to the feed's caps.
#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>

#include "media/formats.hpp"
#include "media/gst_frame_source.hpp"
#include "media/media_error.hpp"
#include "tests/media/clip_fixture.hpp"

namespace hdstream {
namespace {

struct Collected {
  std::mutex mutex;
  std::condition_variable ended;
  bool done = false;
  int frames = 0;
  std::size_t packed_bytes = 0;
  PixelLayout layout = PixelLayout::invalid;
  int width = 0;
};

void run_to_end(GstFrameSource& source, Collected& got) {
  source.start(
      [&](const Picture& picture, std::span<const std::byte> packed) {
        std::lock_guard lock(got.mutex);
        ++got.frames;
        got.packed_bytes = packed.size();
        got.layout = picture.layout;
        got.width = picture.width;
        return true;
      },
      [&](const std::string&) {
        std::lock_guard lock(got.mutex);
        got.done = true;
        got.ended.notify_all();
      });
  std::unique_lock lock(got.mutex);
  ASSERT_TRUE(got.ended.wait_for(lock, std::chrono::seconds(30), [&] { return got.done; }));
}

TEST(GstFrameSource, DeliversEveryFrameOfAFiniteSourceAsPlanar422) {
  GstFrameSource source("videotestsrc pattern=ball num-buffers=5", test::dnxhd220_feed());
  Collected got;
  run_to_end(source, got);
  EXPECT_EQ(got.frames, 5);
  EXPECT_EQ(got.layout, PixelLayout::yuv422p8);
  EXPECT_EQ(got.width, 1920);
}

TEST(GstFrameSource, PackedFormatsArriveInWireLayout) {
  const FeedDescriptor sd{Codec::v210, 720, 486, 30000, 1001, 223'725'075};
  GstFrameSource source("videotestsrc num-buffers=3", sd);
  Collected got;
  run_to_end(source, got);
  EXPECT_EQ(got.frames, 3);
  EXPECT_EQ(got.packed_bytes, raw_frame_bytes(sd));
  EXPECT_EQ(raw_frame_bytes(sd), 933'120u);
}

TEST(GstFrameSource, AMissingElementIsOneLineNamingIt) {
  try {
    GstFrameSource source("nosuchsrc123", test::dnxhd220_feed());
    FAIL();
  } catch (const MediaError& error) {
    EXPECT_NE(std::string(error.what()).find("nosuchsrc123"), std::string::npos) << error.what();
  }
}

TEST(GstFrameSource, APipelineThatCannotStartFailsAtConstruction) {
  EXPECT_THROW(GstFrameSource("filesrc location=/nonexistent/x ! decodebin", test::dnxhd220_feed()),
               MediaError);
}

}  // namespace
}  // namespace hdstream
