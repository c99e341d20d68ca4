#include "protocol/audio_block.hpp"

#include <gtest/gtest.h>

#include <numeric>
#include <random>

#include "protocol/feed_limits.hpp"

namespace hdstream {
namespace {

FeedDescriptor feed_with_audio(Codec codec, std::uint32_t num, std::uint32_t den,
                               std::uint8_t channels = 8, std::uint8_t bits = 24) {
  FeedDescriptor feed{codec, 1920, 1080, num, den, 220'000'000};
  feed.audio = AudioFormat{channels, bits, kAudioSampleRate};
  return feed;
}

FrameBytes pcm_of(const FeedDescriptor& feed, std::uint64_t seq) {
  FrameBytes pcm(std::size_t{audio_samples_in_frame(feed, seq)} * feed.audio.bytes_per_sample());
  for (std::size_t i = 0; i < pcm.size(); ++i) pcm[i] = std::byte(seq * 31 + i * 7);
  return pcm;
}

TEST(AudioBlock, SamplesFollowTheFrameClockExactly) {
  // 29.97: 8008 samples every 5 frames, as 1602 1601 1602 1601 1602 (SMPTE 299M's cadence).
  const auto ntsc = feed_with_audio(Codec::dnxhd, 30000, 1001);
  std::vector<std::uint32_t> cadence;
  for (std::uint64_t n = 0; n < 5; ++n) cadence.push_back(audio_samples_in_frame(ntsc, n));
  EXPECT_EQ(std::accumulate(cadence.begin(), cadence.end(), 0u), 8008u);
  for (auto samples : cadence) EXPECT_TRUE(samples == 1601 || samples == 1602) << samples;
  EXPECT_EQ(audio_sample_at(ntsc, 30000), 48'048'000u);  // 1001 s
  // Whole rates have whole frames; 59.94 has 800 or 801.
  const auto pal = feed_with_audio(Codec::dnxhd, 25, 1);
  EXPECT_EQ(audio_samples_in_frame(pal, 0), 1920u);
  EXPECT_EQ(audio_samples_in_frame(pal, 12345), 1920u);
  const auto p60 = feed_with_audio(Codec::v210, 60000, 1001);
  EXPECT_EQ(audio_sample_at(p60, 5), 4004u);
  // No wrap-around far into a feed (n x rate x den passes 2^64 near frame 3.8e11).
  const std::uint64_t late = 400'000'000'000;
  EXPECT_EQ(audio_sample_at(ntsc, late + 5) - audio_sample_at(ntsc, late), 8008u);
  // A video-only feed has no samples.
  FeedDescriptor silent = ntsc;
  silent.audio = {};
  EXPECT_EQ(audio_samples_in_frame(silent, 3), 0u);
  EXPECT_EQ(max_audio_block_bytes(silent), 0u);
  EXPECT_EQ(max_audio_block_bytes(ntsc), 1602u * 8 * 3 + kAudioTrailerBytes);
}

TEST(AudioBlock, AppendedSoundSplitsBackBitExact) {
  const auto feed = feed_with_audio(Codec::dnxhd, 30000, 1001);
  for (std::uint64_t seq : {0ull, 1ull, 4ull, 99'999ull}) {
    FrameBytes frame(917'504, std::byte{0x11});
    const auto pcm = pcm_of(feed, seq);
    append_audio_block(frame, feed.audio, audio_sample_at(feed, seq), pcm);
    const AudioBlock block = split_audio_block(frame, feed, seq);
    ASSERT_EQ(block.error, "") << seq;
    EXPECT_EQ(block.picture.size(), 917'504u);
    EXPECT_EQ(block.picture.data(), frame.data());
    EXPECT_TRUE(std::ranges::equal(block.pcm, pcm));
    EXPECT_EQ(block.samples, audio_samples_in_frame(feed, seq));
    EXPECT_EQ(block.first_sample, audio_sample_at(feed, seq));
  }
}

TEST(AudioBlock, ARawPictureMustKeepItsSize) {
  auto feed = feed_with_audio(Codec::uyvy, 30000, 1001, 2, 16);
  const std::size_t raw = raw_frame_bytes(feed);
  FrameBytes frame(raw);
  append_audio_block(frame, feed.audio, audio_sample_at(feed, 7), pcm_of(feed, 7));
  EXPECT_EQ(split_audio_block(frame, feed, 7).error, "");
  EXPECT_LE(frame.size(), std::size_t{max_frame_bytes(Hello{.feed = feed, .chunk_bytes = 65536})});
  FrameBytes short_picture(raw - 2);
  append_audio_block(short_picture, feed.audio, audio_sample_at(feed, 7), pcm_of(feed, 7));
  EXPECT_EQ(split_audio_block(short_picture, feed, 7).error,
            "a 4147198-byte picture where uyvy 1920x1080 is 4147200 bytes");
}

TEST(AudioBlock, ATrailerOtherThanTheFrameClockSaysIsRefused) {
  const auto feed = feed_with_audio(Codec::dnxhd, 30000, 1001);
  FrameBytes frame(1000);
  append_audio_block(frame, feed.audio, audio_sample_at(feed, 3), pcm_of(feed, 3));
  // The right block under another frame's number: its first sample is not that frame's.
  EXPECT_EQ(split_audio_block(frame, feed, 2).error,
            "frame 2 carries samples 4804+1602 where the frame clock puts 3203+1601");
  auto broken = frame;
  broken[broken.size() - 16] = std::byte{0};  // the magic
  EXPECT_EQ(split_audio_block(broken, feed, 3).error, "no audio trailer at the end of the frame");
  // A forged count (0xffffffff) is not the frame clock's: refused before any size is computed
  // from it.
  broken = frame;
  for (std::size_t i = broken.size() - 12; i < broken.size() - 8; ++i) broken[i] = std::byte{0xff};
  EXPECT_NE(split_audio_block(broken, feed, 3).error, "");
  EXPECT_EQ(split_audio_block(std::span(frame).first(15), feed, 3).error,
            "a 15-byte frame has no room for its audio trailer");
  // A frame clock count with the PCM cut short: the picture shrinks, the trailer still holds,
  // so a raw picture would fail its size; a compressed one just decodes shorter.
  FrameBytes tiny(10);
  append_audio_block(tiny, feed.audio, audio_sample_at(feed, 3), pcm_of(feed, 3));
  EXPECT_EQ(split_audio_block(std::span(tiny).last(tiny.size() - 20), feed, 3).error,
            "38448 bytes of audio in a 38454-byte frame");
}

TEST(AudioBlock, HostileBytesNeverSplitOutsideTheFrame) {
  const auto feed = feed_with_audio(Codec::dnxhd, 30000, 1001);
  std::mt19937_64 random(20261127);
  FrameBytes frame;
  append_audio_block(frame, feed.audio, audio_sample_at(feed, 0), pcm_of(feed, 0));
  for (int trial = 0; trial < 20000; ++trial) {
    auto bytes = frame;
    bytes.resize(random() % (frame.size() + 64), std::byte{0});
    for (int flips = 0; flips < 4 && !bytes.empty(); ++flips) {
      bytes[random() % bytes.size()] = std::byte(random());
    }
    const AudioBlock block = split_audio_block(bytes, feed, random() % 3);
    if (!block.error.empty()) {
      EXPECT_TRUE(block.picture.empty() && block.pcm.empty());
      continue;
    }
    EXPECT_EQ(block.picture.size() + block.pcm.size() + kAudioTrailerBytes, bytes.size());
    EXPECT_EQ(block.pcm.size(), std::size_t{block.samples} * feed.audio.bytes_per_sample());
  }
}

}  // namespace
}  // namespace hdstream
