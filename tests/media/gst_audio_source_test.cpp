// Sound from a real GStreamer pipeline: the samples come out exactly as gst-launch writes them,
// in frame-sized pieces without a slip; a source that ends leaves counted silence; a bad
// description fails at construction with one line.
#include "media/gst_audio_source.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

#include "media/media_error.hpp"
#include "protocol/audio_block.hpp"
#include "tests/support/process.hpp"

namespace hdstream {
namespace {

constexpr AudioFormat kStereo24{2, 24, kAudioSampleRate};

TEST(GstAudioSource, FrameSizedReadsAreTheSourcesSamplesInOrder) {
  auto dir = test::scratch_dir("gst-audio-source");
  const std::string description = "audiotestsrc wave=sine freq=997 samplesperbuffer=1000";
  // The reference: the same pipeline through gst-launch into a file, 48 buffers = 1 s.
  const auto reference = dir / "reference.pcm";
  const std::string command =
      "gst-launch-1.0 -q " + description +
      " num-buffers=48 ! audioconvert ! audio/x-raw,format=S24LE,rate=48000,channels=2,"
      "layout=interleaved ! filesink location='" +
      reference.string() + "'";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  const std::string expected = test::read_file(reference);
  ASSERT_EQ(expected.size(), 48'000u * 6);

  GstAudioSource source(description, kStereo24);
  FeedDescriptor feed{Codec::dnxhd, 1920, 1080, 30000, 1001};
  feed.audio = kStereo24;
  source.start(audio_samples_in_frame(feed, 0));
  // A test source runs ahead of real time, into the ring (a second): wait for what is read, as
  // the pacer would by reading a frame's worth each frame period.
  ASSERT_TRUE(test::eventually([&] { return source.buffered_samples() >= 46'446; }));
  std::vector<std::byte> read;
  for (std::uint64_t seq = 0; audio_sample_at(feed, seq + 1) <= 48'000; ++seq) {
    source.read(audio_samples_in_frame(feed, seq), read);
  }
  // 29 frames of 29.97 are 46,446 samples: every one the source's, in order.
  ASSERT_EQ(read.size(), std::size_t{audio_sample_at(feed, 29)} * 6);
  EXPECT_TRUE(std::string(reinterpret_cast<const char*>(read.data()), read.size()) ==
              expected.substr(0, read.size()));
  EXPECT_EQ(source.missing_samples(), 0u);
}

TEST(GstAudioSource, ASourceThatEndsLeavesCountedSilence) {
  GstAudioSource source("audiotestsrc wave=sine samplesperbuffer=1000 num-buffers=5", kStereo24);
  source.start(1000);
  ASSERT_TRUE(test::eventually([&] { return source.ended(); }));
  // Its 5,000 samples, then silence for what it never made.
  std::vector<std::byte> read;
  source.read(20'000, read);
  ASSERT_EQ(read.size(), 20'000u * 6);
  EXPECT_NE(std::vector<std::byte>(read.begin(), read.begin() + 30'000),
            std::vector<std::byte>(30'000));
  EXPECT_EQ(std::vector<std::byte>(read.begin() + 30'000, read.end()),
            std::vector<std::byte>(read.size() - 30'000));
  EXPECT_EQ(source.missing_samples(), 15'000u);
}

TEST(GstAudioSource, ABadDescriptionIsAOneLineError) {
  try {
    GstAudioSource source("nosuchaudiosrc", kStereo24);
    FAIL() << "a source that cannot exist was made";
  } catch (const MediaError& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("nosuchaudiosrc"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace hdstream
