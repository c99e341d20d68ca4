// Whether a resumed session continues a feed's recording (pipeline/recording_resumption.hpp):
// the same feed, sequence numbers going on, no more skipped than the outage lasted.
#include "pipeline/recording_resumption.hpp"

#include <gtest/gtest.h>

namespace hdstream {
namespace {

using namespace std::chrono_literals;

FeedDescriptor dnxhd() {
  return FeedDescriptor{Codec::dnxhd, 1920, 1080, 30000, 1001, 219'980'979};
}

Hello hello_at(std::uint64_t first_frame_seq, FeedDescriptor feed = dnxhd()) {
  Hello hello;
  hello.feed = feed;
  hello.first_frame_seq = first_frame_seq;
  return hello;
}

TEST(RecordingResumption, TheSameFeedGoingOnContinues) {
  EXPECT_EQ(recording_break(dnxhd(), 150, hello_at(150), 2s), "");
  // Frames the sender produced during the outage are a gap in the file: 2 s at 29.97 fps.
  EXPECT_EQ(recording_break(dnxhd(), 150, hello_at(210), 2s), "");
}

TEST(RecordingResumption, AnotherFormatGoesToANewFile) {
  FeedDescriptor smaller = dnxhd();
  smaller.width = 1280;
  smaller.height = 720;
  const std::string why = recording_break(dnxhd(), 150, hello_at(150, smaller), 2s);
  EXPECT_NE(why.find("format changed"), std::string::npos) << why;
  EXPECT_NE(why.find("1280x720"), std::string::npos) << why;

  FeedDescriptor with_sound = dnxhd();
  with_sound.audio = AudioFormat{2, 24, kAudioSampleRate};
  EXPECT_NE(recording_break(dnxhd(), 150, hello_at(150, with_sound), 2s), "");

  FeedDescriptor faster = dnxhd();
  faster.frame_rate_num = 60000;
  EXPECT_NE(recording_break(dnxhd(), 150, hello_at(150, faster), 2s), "");

  FeedDescriptor other_codec = dnxhd();
  other_codec.codec = Codec::uyvy;
  EXPECT_NE(recording_break(dnxhd(), 150, hello_at(150, other_codec), 2s), "");
}

TEST(RecordingResumption, ARestartedSenderGoesToANewFile) {
  const std::string why = recording_break(dnxhd(), 150, hello_at(0), 2s);
  EXPECT_NE(why.find("started over"), std::string::npos) << why;
  EXPECT_NE(recording_break(dnxhd(), 150, hello_at(149), 2s), "");
}

TEST(RecordingResumption, ASkipFarBeyondTheOutageGoesToANewFile) {
  // A 2 s outage and the slack (frames in flight, the time to notice a silent path): at most
  // (2 + 60) s x 29.97 fps = 1859 frames skipped.
  EXPECT_EQ(recording_break(dnxhd(), 150, hello_at(150 + 1858), 2s), "");
  const std::string why = recording_break(dnxhd(), 150, hello_at(150 + 1860), 2s);
  EXPECT_NE(why.find("skipped 1860 frames"), std::string::npos) << why;
  // A hostile HELLO claiming to be hours on cannot stretch the file's timeline.
  EXPECT_NE(recording_break(dnxhd(), 150, hello_at(UINT64_MAX), 2s), "");
}

}  // namespace
}  // namespace hdstream
