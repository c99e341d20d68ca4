// media/GstAudioSink with a real clocked GStreamer sink (fakesink sync=true): every sample pushed
// is played at its time, and a feed that is not heard (the program's sound follows its cut)
// reaches the sink as silence while it plays on in step.
#include "media/gst_audio_sink.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numbers>
#include <vector>

#include "tests/support/eventually.hpp"

namespace hdstream {
namespace {

using namespace std::chrono_literals;

constexpr AudioFormat kStereo16{2, 16, kAudioSampleRate};
constexpr std::uint64_t kChunk = 1600;  // a 30 fps frame's samples

// `chunks` frames of a 1 kHz tone at -6 dBFS (or silence), from sample `first`.
void play(GstAudioSink& sink, std::uint64_t first, int chunks, bool tone = true) {
  std::vector<std::byte> pcm(kChunk * kStereo16.bytes_per_sample());
  for (int c = 0; c < chunks; ++c) {
    for (std::uint64_t i = 0; i < kChunk; ++i) {
      const std::uint64_t n = first + c * kChunk + i;
      const auto value = static_cast<std::int16_t>(
          tone ? 16384 * std::sin(2 * std::numbers::pi * 1000.0 * n / kAudioSampleRate) : 0);
      for (int ch = 0; ch < 2; ++ch) {
        std::memcpy(&pcm[(i * 2 + ch) * 2], &value, 2);
      }
    }
    sink.play(pcm, first + c * kChunk);
  }
}

TEST(GstAudioSink, WhatIsNotHeardPlaysOnAsSilence) {
  GstAudioSink sink("null", kStereo16);
  play(sink, 0, 10);
  ASSERT_TRUE(test::eventually([&] { return sink.samples_played() >= 10 * kChunk; }, 5s));
  EXPECT_EQ(sink.samples_played(), 10 * kChunk);
  EXPECT_EQ(sink.samples_heard(), 10 * kChunk) << "a tone, heard: every sample";

  sink.set_heard(false);  // cut away from this feed
  play(sink, 10 * kChunk, 10);
  ASSERT_TRUE(test::eventually([&] { return sink.samples_played() >= 20 * kChunk; }, 5s));
  EXPECT_EQ(sink.samples_played(), 20 * kChunk) << "muted, it still plays at its time";
  EXPECT_EQ(sink.samples_heard(), 10 * kChunk) << "and the sink hears none of it";

  sink.set_heard(true);  // cut back
  play(sink, 20 * kChunk, 10);
  ASSERT_TRUE(test::eventually([&] { return sink.samples_played() >= 30 * kChunk; }, 5s));
  EXPECT_EQ(sink.samples_heard(), 20 * kChunk);
  sink.finish();
}

TEST(GstAudioSink, SilenceIsPlayedButNotHeard) {
  GstAudioSink sink("null", kStereo16);
  play(sink, 0, 5, /*tone=*/false);
  sink.play_silence(5 * kChunk, 3 * kChunk);
  ASSERT_TRUE(test::eventually([&] { return sink.samples_played() >= 8 * kChunk; }, 5s));
  EXPECT_EQ(sink.samples_played(), 8 * kChunk);
  EXPECT_EQ(sink.samples_heard(), 0u);
  sink.finish();
}

}  // namespace
}  // namespace hdstream
