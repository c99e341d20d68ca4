// mux/ts_audio: which sound each TS audio codec carries, said in one line naming what to do.
#include "mux/ts_audio.hpp"

#include <gtest/gtest.h>

namespace hdstream {
namespace {

AudioFormat channels(int n) {
  return AudioFormat{static_cast<std::uint8_t>(n), 24, kAudioSampleRate};
}

TEST(TsAudio, NamesRoundTripAndStrangersAreRefused) {
  EXPECT_EQ(ts_audio_from_string("302m"), TsAudio::s302m);
  EXPECT_EQ(ts_audio_from_string("s302m"), TsAudio::s302m);
  EXPECT_EQ(ts_audio_from_string("aac"), TsAudio::aac);
  for (auto codec : {TsAudio::s302m, TsAudio::aac})
    EXPECT_EQ(ts_audio_from_string(to_string(codec)), codec);
  for (const char* stranger : {"", "AAC", "mp2", "302", "aac "})
    EXPECT_FALSE(ts_audio_from_string(stranger)) << stranger;
}

TEST(TsAudio, Smpte302mCarriesPairsUpToEightChannels) {
  for (int n : {2, 4, 6, 8}) EXPECT_FALSE(ts_audio_problem(channels(n), TsAudio::s302m)) << n;
  EXPECT_FALSE(ts_audio_problem(AudioFormat{}, TsAudio::s302m));  // no sound: nothing to carry
  const auto odd = ts_audio_problem(channels(3), TsAudio::s302m);
  ASSERT_TRUE(odd);
  EXPECT_EQ(*odd,
            "--mux ts: SMPTE 302M carries 2, 4, 6 or 8 channels and this feed has 3; --ts-audio "
            "aac carries it");
  const auto many = ts_audio_problem(channels(16), TsAudio::s302m);
  ASSERT_TRUE(many);
  EXPECT_NE(many->find("has 16; hdstream's own framing (--mux none) carries up to 16"),
            std::string::npos)
      << *many;
  EXPECT_TRUE(ts_audio_problem(channels(7), TsAudio::s302m));
}

TEST(TsAudio, AacCarriesOneToSixOrEightChannels) {
  for (int n : {1, 2, 3, 4, 5, 6, 8})
    EXPECT_FALSE(ts_audio_problem(channels(n), TsAudio::aac)) << n;
  for (int n : {7, 9, 16}) {
    const auto problem = ts_audio_problem(channels(n), TsAudio::aac);
    ASSERT_TRUE(problem) << n;
    EXPECT_NE(problem->find("AAC carries 1 to 6 or 8 channels"), std::string::npos) << *problem;
  }
}

TEST(TsAudio, RatesAreAes3FramingOr64kAChannel) {
  EXPECT_EQ(ts_audio_rate_bps(channels(8), TsAudio::s302m), 48'000u * 8 * 28);
  EXPECT_EQ(ts_audio_rate_bps(AudioFormat{2, 16, kAudioSampleRate}, TsAudio::s302m),
            48'000u * 2 * 20);
  EXPECT_EQ(ts_audio_rate_bps(channels(6), TsAudio::aac), 384'000u);
  EXPECT_EQ(ts_audio_rate_bps(AudioFormat{}, TsAudio::s302m), 0u);
}

}  // namespace
}  // namespace hdstream
