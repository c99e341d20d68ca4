// The lip-sync marker: its sound (line-up tone, a beep on each sync frame) and the bars clip
// made with it, read back with real libavformat and libavcodec: the beep and the white flash are
// on the same frames, once a second.
#include "media/sync_marker.hpp"

#include <gtest/gtest.h>

#include "media/file_audio_reader.hpp"
#include "media/file_reader.hpp"
#include "media/picture_watch.hpp"
#include "media/sample_clip.hpp"
#include "media/video_decoder.hpp"
#include "protocol/audio_block.hpp"
#include "tests/media/clip_fixture.hpp"
#include "tests/support/process.hpp"

namespace hdstream {
namespace {

FeedDescriptor feed_with(AudioFormat audio) {
  FeedDescriptor feed = test::dnxhd220_feed();
  feed.audio = audio;
  return feed;
}

TEST(SyncMarker, ABeepOnEachSyncFrameAndToneBetween) {
  for (const AudioFormat audio :
       {AudioFormat{2, 24, kAudioSampleRate}, AudioFormat{8, 16, kAudioSampleRate}}) {
    const FeedDescriptor feed = feed_with(audio);
    for (std::uint64_t n : {0ull, 1ull, 29ull, 30ull, 31ull, 60ull}) {
      std::vector<std::byte> pcm;
      append_sync_sound(feed, n, pcm);
      ASSERT_EQ(pcm.size(),
                std::size_t{audio_samples_in_frame(feed, n)} * audio.bytes_per_sample());
      const auto onset = beep_onset(pcm, audio);
      EXPECT_EQ(is_sync_frame(feed, n), n % 30 == 0) << n;
      if (is_sync_frame(feed, n)) {
        // 1 kHz from phase 0 (sample 0 of a 48-sample period at each sync frame: 30 frames are
        // 48,048 samples) reaches -12 dBFS of a -6 dBFS peak a twelfth of a period in: sample 4.
        ASSERT_TRUE(onset) << n;
        EXPECT_EQ(*onset, 4u) << n;
      } else {
        EXPECT_FALSE(onset) << n << ": the line-up tone stays below the beep's level";
        EXPECT_NE(pcm, std::vector<std::byte>(pcm.size())) << "tone, not silence";
      }
    }
  }
  EXPECT_TRUE(is_sync_frame(FeedDescriptor{Codec::v210, 1920, 1080, 60000, 1001}, 60));
  EXPECT_FALSE(is_sync_frame(FeedDescriptor{Codec::v210, 1920, 1080, 60000, 1001}, 30));
}

TEST(SyncMarker, OnsetIsFoundWhereverTheBeepStartsAndNeverInSilence) {
  const AudioFormat stereo{2, 24, kAudioSampleRate};
  std::vector<std::byte> pcm(1000 * 6);
  EXPECT_FALSE(beep_onset(pcm, stereo));
  // A negative full-scale sample at 700 (channel 0) is a beep; channel 1 alone is not.
  pcm[600 * 6 + 3 + 2] = std::byte{0x80};
  EXPECT_FALSE(beep_onset(pcm, stereo));
  pcm[700 * 6 + 2] = std::byte{0x80};
  EXPECT_EQ(beep_onset(pcm, stereo), 700u);
  EXPECT_FALSE(beep_onset(std::span(pcm).first(5), stereo));  // not one whole sample frame
}

TEST(SyncMarker, TheBarsClipFlashesAndBeepsOnTheSameFramesOnceASecond) {
  const auto dir = test::scratch_dir("sync-marker-clip");
  // The clip is made here, not taken from another test's cache; the setting is put back after.
  const char* before = std::getenv("HDSTREAM_MEDIA_CACHE");
  const std::string restore = before ? before : "";
  ::setenv("HDSTREAM_MEDIA_CACHE", dir.c_str(), 1);
  // Unlabelled: the label's textoverlay brings in fontconfig, whose process-wide caches
  // LeakSanitizer reports at exit; the marker does not depend on it.
  const auto clip = cached_sample_clip(test::dnxhd220_feed());
  if (before) {
    ::setenv("HDSTREAM_MEDIA_CACHE", restore.c_str(), 1);
  } else {
    ::unsetenv("HDSTREAM_MEDIA_CACHE");
  }
  FileReader pictures(clip.string(), test::dnxhd220_feed());
  auto sound = FileAudioReader::open_if_any(clip.string());
  ASSERT_TRUE(sound);
  EXPECT_EQ(sound->format(), kBarsSound);
  const FeedDescriptor feed = feed_with(kBarsSound);
  VideoDecoder decoder(test::dnxhd220_feed());
  FrameBytes frame;
  std::vector<std::byte> pcm, expected;
  for (std::uint64_t n = 0; n < 60; ++n) {
    pictures.read(frame);
    pcm.clear();
    expected.clear();
    sound->read(audio_samples_in_frame(feed, n), pcm);
    append_sync_sound(feed, n, expected);
    EXPECT_TRUE(pcm == expected) << "frame " << n << ": the clip's sound as made";
    EXPECT_EQ(looks_white(decoder.decode(frame)), n % 30 == 0) << "frame " << n;
  }
  EXPECT_EQ(pictures.loops(), 0u);
}

}  // namespace
}  // namespace hdstream
