// media/audio_watch: a feed's sound levels per channel pair, peak hold and the silence alarm, on
// PCM built here with known levels.
#include "media/audio_watch.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

namespace hdstream {
namespace {

constexpr std::int64_t kMs = 1'000'000;

// One 29.97 frame (1601 samples) of a 1 kHz sine at `amplitude` (of full scale) on each channel,
// channel c at amplitudes[c].
std::vector<std::byte> frame(const AudioFormat& audio, const std::vector<double>& amplitudes) {
  const std::size_t width = audio.bits / 8u;
  const double full = audio.bits == 16 ? 32767.0 : 8388607.0;
  std::vector<std::byte> pcm;
  for (int s = 0; s < 1601; ++s) {
    for (int c = 0; c < audio.channels; ++c) {
      const double x = amplitudes[static_cast<std::size_t>(c)] *
                       std::sin(2 * std::numbers::pi * 1000.0 * s / 48000.0);
      const auto value =
          static_cast<std::uint32_t>(static_cast<std::int32_t>(std::lround(x * full)));
      for (std::size_t b = 0; b < width; ++b) pcm.push_back(std::byte(value >> (8 * b)));
    }
  }
  return pcm;
}

TEST(AudioWatch, PeakAndRmsPerPairInDbfs) {
  for (const std::uint8_t bits : {16, 24}) {
    const AudioFormat audio{3, bits, kAudioSampleRate};  // pairs 1-2 and 3 alone
    AudioWatch watch(audio);
    const SoundLevels& levels = watch.observe(frame(audio, {0.5, 0.25, 0.0}), 0);
    ASSERT_EQ(levels.pairs.size(), 2u);
    // The pair reads its louder channel's peak: 0.5 is -6.02 dBFS; its RMS over both channels,
    // sqrt((0.5^2 + 0.25^2) / 4) = 0.2795: -11.07 dBFS.
    EXPECT_NEAR(levels.pairs[0].peak_dbfs, -6.02, 0.01) << int(bits);
    EXPECT_NEAR(levels.pairs[0].rms_dbfs, -11.07, 0.02) << int(bits);
    EXPECT_EQ(levels.pairs[1].peak_dbfs, kLevelFloorDbfs);  // digital silence
    EXPECT_EQ(levels.pairs[1].rms_dbfs, kLevelFloorDbfs);
    EXPECT_FALSE(levels.silent);
  }
  // A full-scale sine: 0 dBFS peak, -3.01 RMS.
  const AudioFormat stereo{2, 24, kAudioSampleRate};
  AudioWatch watch(stereo);
  const auto& levels = watch.observe(frame(stereo, {1.0, 1.0}), 0);
  EXPECT_NEAR(levels.pairs[0].peak_dbfs, 0.0, 0.01);
  EXPECT_NEAR(levels.pairs[0].rms_dbfs, -3.01, 0.01);
}

TEST(AudioWatch, ThePeakIsHeldTwoSecondsThenFollowsTheSound) {
  const AudioFormat stereo{2, 24, kAudioSampleRate};
  AudioWatch watch(stereo);
  watch.observe(frame(stereo, {0.5, 0.5}), 0);
  const auto quiet = frame(stereo, {0.05, 0.05});  // -26 dBFS
  EXPECT_NEAR(watch.observe(quiet, 1000 * kMs).pairs[0].hold_dbfs, -6.02, 0.01);
  EXPECT_NEAR(watch.observe(quiet, 2000 * kMs).pairs[0].hold_dbfs, -6.02, 0.01);
  const auto& after = watch.observe(quiet, 2001 * kMs);
  EXPECT_NEAR(after.pairs[0].hold_dbfs, -26.02, 0.01);
  EXPECT_NEAR(after.pairs[0].peak_dbfs, -26.02, 0.01);
  // A louder peak takes the hold at once.
  EXPECT_NEAR(watch.observe(frame(stereo, {0.9, 0.1}), 2100 * kMs).pairs[0].hold_dbfs, -0.92, 0.01);
}

TEST(AudioWatch, SilenceRaisesTheAlarmAfterItsTimeAndSoundClearsItAtOnce) {
  const AudioFormat stereo{2, 16, kAudioSampleRate};
  AudioWatch watch(stereo, {.silent_after = std::chrono::seconds(5)});
  const auto hiss = frame(stereo, {0.0009, 0.0009});  // -61 dBFS: below the silence line
  EXPECT_FALSE(watch.observe(hiss, 0).silent);
  EXPECT_FALSE(watch.observe(hiss, 4999 * kMs).silent);
  EXPECT_TRUE(watch.observe(hiss, 5000 * kMs).silent);
  // -59 dBFS on one channel of the pair is sound.
  EXPECT_FALSE(watch.observe(frame(stereo, {0.0012, 0.0}), 5100 * kMs).silent);
  EXPECT_FALSE(watch.observe(hiss, 10099 * kMs).silent);
  EXPECT_TRUE(watch.observe(hiss, 10100 * kMs).silent);
  // Nothing at all (an empty block) is silence too, and never a crash.
  EXPECT_TRUE(watch.observe({}, 10200 * kMs).silent);
}

}  // namespace
}  // namespace hdstream
