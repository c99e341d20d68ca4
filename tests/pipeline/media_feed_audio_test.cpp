// The receiving media path of a feed with sound, with real libavcodec and libavformat: sound
// that never came is counted and recorded as silence of exactly its length, a frame whose audio
// block the frame clock does not account for is refused, and the rest is recorded bit for bit.
#include "pipeline/media_feed.hpp"

#include <gtest/gtest.h>

#include "common/clock.hpp"
#include "media/file_audio_reader.hpp"
#include "media/file_reader.hpp"
#include "protocol/audio_block.hpp"
#include "tests/media/clip_fixture.hpp"
#include "tests/support/process.hpp"

namespace hdstream {
namespace {

FeedDescriptor feed_with_sound() {
  FeedDescriptor feed = test::dnxhd220_feed();
  feed.audio = AudioFormat{8, 24, kAudioSampleRate};
  return feed;
}

// Frame `seq`'s sound: every byte depends on the frame and its place, so a sample out of place
// shows.
std::vector<std::byte> pcm_for(const FeedDescriptor& feed, std::uint64_t seq) {
  std::vector<std::byte> pcm(std::size_t{audio_samples_in_frame(feed, seq)} *
                             feed.audio.bytes_per_sample());
  for (std::size_t i = 0; i < pcm.size(); ++i) pcm[i] = std::byte((seq * 131 + i * 7) % 251);
  return pcm;
}

TEST(MediaFeedAudio, MissingSoundIsCountedAndRecordedAsSilenceOfExactlyItsLength) {
  const auto dir = test::scratch_dir("media-feed-audio-gaps");
  const FeedDescriptor feed = feed_with_sound();
  FileReader reader(test::dnxhd_clip(dir, 3).string(), test::dnxhd220_feed());
  FrameBytes picture;
  reader.read(picture);

  MediaOutput output;
  output.targets = {
      {.kind = OutputTarget::Kind::file, .file_pattern = (dir / "rec{stream}.mov").string()}};
  output.queue_frames = 16;
  output.record_queue_frames = 64;
  output.audio_output = "null";  // a clocked GStreamer fakesink
  StreamCounters counters;
  std::vector<std::byte> expected;  // the recording's sound, as it must be
  const auto silence = [&](std::uint64_t from_seq, std::uint64_t to_seq) {
    expected.resize(expected.size() +
                    (audio_sample_at(feed, to_seq) - audio_sample_at(feed, from_seq)) *
                        feed.audio.bytes_per_sample());
  };
  {
    Hello hello;
    hello.feed = feed;
    MediaFeed media(0, hello, output, counters);
    for (std::uint64_t seq : {0, 1, 2, 5, 6, 7, 8, 9, 10, 11}) {
      auto frame = std::make_shared<Frame>();
      frame->seq = seq;
      frame->ready_ns = wall_clock_ns();
      frame->data = picture;
      const auto pcm = pcm_for(feed, seq);
      // Frame 10 says it carries frame 9's samples: refused.
      append_audio_block(frame->data, feed.audio, audio_sample_at(feed, seq == 10 ? 9 : seq), pcm);
      if (seq == 5) silence(3, 5);  // frames 3 and 4 never came
      if (seq == 10) {
        silence(10, 11);
      } else {
        expected.insert(expected.end(), pcm.begin(), pcm.end());
      }
      media.push(std::move(frame));
    }
    media.finish();
  }
  EXPECT_EQ(counters.audio_gaps.load(), 2u);
  EXPECT_EQ(counters.audio_silence_samples.load(),
            audio_sample_at(feed, 5) - audio_sample_at(feed, 3) + audio_samples_in_frame(feed, 10));
  EXPECT_EQ(counters.decode_errors.load(), 1u);
  EXPECT_EQ(counters.frames_decoded.load(), 9u);
  EXPECT_EQ(counters.frames_recorded.load(), 9u);
  // The sink played every sample of the twelve frames' time: the sound that came and, for the
  // rest, silence of its length.
  EXPECT_EQ(counters.audio_samples_played.load(), audio_sample_at(feed, 12));

  // The recording: PCM as carried, 24-bit, 8 channels, silence where the sound never came.
  auto sound = FileAudioReader::open_if_any((dir / "rec0.mov").string());
  ASSERT_TRUE(sound);
  EXPECT_EQ(sound->format(), feed.audio);
  std::vector<std::byte> recorded;
  sound->read(static_cast<std::uint32_t>(audio_sample_at(feed, 12)), recorded);
  EXPECT_EQ(recorded.size(), expected.size());
  EXPECT_TRUE(recorded == expected);
  // Nothing beyond: one more sample past the end reads as the reader's silence.
  std::vector<std::byte> beyond;
  sound->read(1, beyond);
  EXPECT_EQ(beyond, std::vector<std::byte>(24));
}

// A sender that jumps a million frames (nine hours) ahead in one frame, 10 ms after the last:
// counted as the gap it claims, but it costs the recording the time the gap took and a second of
// zeros, and the speaker a second, not nine hours; the speaker then plays the frame's sound
// at once instead of waiting nine hours for it.
TEST(MediaFeedAudio, AJumpOfHoursCostsASecondOfSilenceNotHours) {
  const auto dir = test::scratch_dir("media-feed-audio-jump");
  const FeedDescriptor feed = feed_with_sound();
  FileReader reader(test::dnxhd_clip(dir, 1).string(), test::dnxhd220_feed());
  FrameBytes picture;
  reader.read(picture);
  MediaOutput output;
  output.targets = {
      {.kind = OutputTarget::Kind::file, .file_pattern = (dir / "rec{stream}.mov").string()}};
  output.audio_output = "null";
  StreamCounters counters;
  constexpr std::uint64_t kJump = 1'000'000;
  constexpr std::int64_t kArrival = 1'000'000'000;
  {
    Hello hello;
    hello.feed = feed;
    MediaFeed media(0, hello, output, counters);
    for (const std::uint64_t seq : {std::uint64_t{0}, kJump}) {
      auto frame = std::make_shared<Frame>();
      frame->seq = seq;
      frame->ready_ns = wall_clock_ns();
      frame->arrival_ns = kArrival + (seq ? 10'000'000 : 0);
      frame->data = picture;
      append_audio_block(frame->data, feed.audio, audio_sample_at(feed, seq), pcm_for(feed, seq));
      media.push(std::move(frame));
    }
    media.finish();
  }
  const std::uint64_t gap = audio_sample_at(feed, kJump) - audio_sample_at(feed, 1);
  EXPECT_EQ(counters.audio_gaps.load(), 1u);
  EXPECT_EQ(counters.audio_silence_samples.load(), gap);
  const std::uint64_t first = audio_samples_in_frame(feed, 0),
                      last = audio_samples_in_frame(feed, kJump);
  // The speaker: the first frame, a second of the gap's end, the last frame.
  EXPECT_EQ(counters.audio_samples_played.load(), first + 48'000 + last);
  // The recording: 10 ms and a second of silence (480 + 48,000 samples), then the sound jumps.
  auto sound = FileAudioReader::open_if_any((dir / "rec0.mov").string());
  ASSERT_TRUE(sound);
  std::vector<std::byte> recorded;
  sound->read(static_cast<std::uint32_t>(first + 48'480 + last), recorded);
  std::vector<std::byte> expected = pcm_for(feed, 0);
  expected.resize(expected.size() + 48'480 * feed.audio.bytes_per_sample());
  const auto tail = pcm_for(feed, kJump);
  expected.insert(expected.end(), tail.begin(), tail.end());
  EXPECT_TRUE(recorded == expected);
  std::vector<std::byte> beyond;
  sound->read(1, beyond);
  EXPECT_EQ(beyond, std::vector<std::byte>(24)) << "nothing more was written";
}

}  // namespace
}  // namespace hdstream
