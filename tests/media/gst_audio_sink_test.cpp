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

// The pictures steer the sound's clock, after their first half second and then each second (30
// pictures here): not through the ordinary jitter of their decode times, later for a picture
// that was late, earlier when every picture had far more room than it needed. The samples asked
// about are not pushed yet, so their times follow the clock.
TEST(GstAudioSink, PicturesSteerTheClockOnlyBeyondTheirJitter) {
  GstAudioSink sink("null", kStereo16);
  play(sink, 0, 1);  // the first samples set the clock
  const std::int64_t delay = std::chrono::nanoseconds(kSoundPlayoutDelay).count();
  std::uint64_t next = 100;  // in frames, well past what was pushed
  // `count` pictures, each ready `room(i)` before it must be shown (a delay before its sound);
  // returns how far the clock moved (positive: later).
  const auto pictures = [&](int count, auto room) {
    const std::uint64_t probe = 1000 * kChunk;
    const std::int64_t before = *sink.plays_at_ns(probe);
    for (int i = 0; i < count; ++i, ++next) {
      const std::uint64_t sample = next * kChunk;
      sink.picture_ready(sample, *sink.plays_at_ns(sample) - delay - room(i));
    }
    return *sink.plays_at_ns(probe) - before;
  };
  constexpr std::int64_t ms = 1'000'000;
  // The first half second: every picture with 60 ms or more to spare, so the clock comes 50 ms
  // earlier at once, leaving a 10 ms margin.
  EXPECT_NEAR(pictures(15, [](int i) { return (60 + i) * ms; }), -50 * ms, ms / 2);
  EXPECT_EQ(sink.resyncs(), 1u);
  // Then a second at a time. Decode times that vary by 15 ms, every picture with 12 to 27 ms to
  // spare: held still.
  EXPECT_NEAR(pictures(30, [](int i) { return (12 + 5 * (i % 4)) * ms; }), 0, ms / 2);
  // One picture 2 ms late, within the dead band: still held.
  EXPECT_NEAR(pictures(30, [](int i) { return i == 7 ? -2 * ms : 15 * ms; }), 0, ms / 2);
  EXPECT_EQ(sink.resyncs(), 1u);
  // One picture 20 ms late: the sound moves 30 ms later (the 20 and the margin) at once.
  EXPECT_NEAR(pictures(30, [](int i) { return i == 7 ? -20 * ms : 15 * ms; }), 30 * ms, ms / 2);
  EXPECT_EQ(sink.resyncs(), 2u);
  // Every picture with 50 ms or more to spare: 40 ms earlier, leaving the margin.
  EXPECT_NEAR(pictures(30, [](int i) { return (50 + i) * ms; }), -40 * ms, ms / 2);
  EXPECT_EQ(sink.resyncs(), 3u);
  sink.finish();
}

}  // namespace
}  // namespace hdstream
