// Sound with the picture between two hdstream processes: a clip's PCM track travels inside its
// frames on every transport and is recorded beside the picture, sample for sample.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "tests/media/clip_fixture.hpp"
#include "tests/media/sound_fixture.hpp"
#include "tests/support/process.hpp"
#include "tests/support/stats_lines.hpp"

namespace hdstream {
namespace {

using namespace std::chrono_literals;

class AudioLoopback : public ::testing::TestWithParam<std::vector<std::string>> {};

// Five feeds of eight channels each: every feed's recording holds the clip's sound twice over
// (60 frames of a 30-frame clip), bit for bit, beside its 60 pictures, with no gap, and every
// sample is played (--audio-output null: a clocked GStreamer fakesink).
TEST_P(AudioLoopback, FiveFeedsOfEightChannelsAreRecordedBitExactWithoutAGap) {
  const auto& transport = GetParam();
  auto dir = test::scratch_dir("audio-" + transport[1]);
  const auto clip = test::clip_with_sound(HDSTREAM_MEDIA_CACHE, 8);
  ASSERT_FALSE(clip.empty());
  const std::string source = test::pcm_of(clip, dir);
  ASSERT_EQ(source.size(), 48'048u * 8 * 3);
  const std::string address = "127.0.0.1:" + std::to_string(test::free_port());
  std::vector<std::string> recv_args{
      HDSTREAM_BINARY,  "recv",      "--listen",     address,
      "--streams",      "5",         "--output",     "file:" + (dir / "feed{stream}.mov").string(),
      "--audio-output", "null",      "--duration",   "60s",
      "--stats",        "json",      "--stats-file", (dir / "r.jsonl").string(),
      transport[0],     transport[1]};
  std::vector<std::string> send_args{
      HDSTREAM_BINARY, "send", "--dest", address, "--streams", "5", "--format", "dnxhd220",
      "--source", "file:" + clip.string(), "--duration", "2s",
      // What a feed may wait before it counts as dropped: the
      // sound's bits are the point here, and at SRT's default 120 ms
      // a loaded machine's stall dropped 6 frames (one core busy).
      "--latency", "500ms", "--stats", "json", "--stats-file", (dir / "s.jsonl").string()};
  send_args.insert(send_args.end(), transport.begin(), transport.end());
  test::Process recv(recv_args, dir, "recv");
  test::Process send(send_args, dir, "send");
  ASSERT_EQ(send.wait(90s), 0) << send.err();
  ASSERT_EQ(recv.wait(90s), 0) << recv.err();

  const std::string received = test::read_file(dir / "r.jsonl");
  const auto summary = test::find_line(received, "summary");
  ASSERT_TRUE(summary) << received;
  EXPECT_EQ((*summary)["frames"], 5 * 60);
  EXPECT_EQ((*summary)["drops"], 0);
  for (int stream = 0; stream < 5; ++stream) {
    nlohmann::json media;
    for (auto& line : test::json_lines(received)) {
      if (line["type"] == "media" && line["stream"] == stream) media = line;
    }
    ASSERT_FALSE(media.is_null()) << stream;
    EXPECT_EQ(media["audio_channels"], 8);
    EXPECT_EQ(media["audio_gaps"], 0);
    EXPECT_EQ(media["audio_silence_samples"], 0);
    // Played in real time by a clocked sink, to the last sample.
    EXPECT_EQ(media["audio_samples_played"], 2 * 48'048);
    EXPECT_EQ(media["frames_decoded"], 60);
    EXPECT_EQ(media["decode_errors"], 0);
    const std::string recorded =
        test::pcm_of(dir / ("feed" + std::to_string(stream) + ".mov"), dir);
    ASSERT_EQ(recorded.size(), 2 * source.size()) << "stream " << stream;
    EXPECT_TRUE(recorded == source + source) << "stream " << stream;
  }
}

// A live picture with its sound from a GStreamer description: both arrive, every frame with its
// samples, and the recording's sound is the tone (not silence) for exactly the picture's length.
TEST(AudioSources, AGStreamerDescriptionsSoundTravelsWithALivePicture) {
  auto dir = test::scratch_dir("audio-gst");
  const std::string address = "127.0.0.1:" + std::to_string(test::free_port());
  test::Process recv({HDSTREAM_BINARY, "recv", "--listen", address, "--output",
                      "file:" + (dir / "feed{stream}.mkv").string(), "--duration", "60s", "--stats",
                      "json", "--stats-file", (dir / "r.jsonl").string()},
                     dir, "recv");
  test::Process send({HDSTREAM_BINARY, "send", "--dest", address, "--format", "dnxhd220",
                      "--source", "videotestsrc pattern=ball", "--audio-source",
                      "audiotestsrc wave=square freq=1000 volume=0.5", "--audio-channels", "6",
                      "--duration", "2s", "--log-level", "info"},
                     dir, "send");
  ASSERT_EQ(send.wait(90s), 0) << send.err();
  ASSERT_EQ(recv.wait(90s), 0) << recv.err();
  EXPECT_NE(send.err().find("6 channels of 24-bit sound from 'audiotestsrc wave=square"),
            std::string::npos)
      << send.err();
  nlohmann::json media;
  for (auto& line : test::json_lines(test::read_file(dir / "r.jsonl"))) {
    if (line["type"] == "media") media = line;
  }
  EXPECT_EQ(media["audio_channels"], 6);
  EXPECT_EQ(media["audio_gaps"], 0);
  EXPECT_EQ(media["frames_recorded"], 60);
  // Metered per pair: a square wave at half scale peaks at -6.0 dBFS and its RMS is its peak.
  ASSERT_EQ(media["audio_levels"].size(), 3u) << media;
  for (const auto& pair : media["audio_levels"]) {
    EXPECT_NEAR(pair["peak_dbfs"].get<double>(), -6.0, 0.1) << pair;
    EXPECT_NEAR(pair["rms_dbfs"].get<double>(), -6.0, 0.1) << pair;
    EXPECT_NEAR(pair["hold_dbfs"].get<double>(), -6.0, 0.1) << pair;
  }
  EXPECT_EQ(media["audio_silent"], false);
  // 60 frames of 29.97 are 96,096 samples; a square wave at half scale is +-2^22 (24-bit).
  const std::string pcm = test::pcm_of(dir / "feed0.mkv", dir);
  ASSERT_EQ(pcm.size(), 96'096u * 6 * 3);
  long loud = 0;
  for (std::size_t i = 0; i + 3 <= pcm.size(); i += 3) {
    const std::int32_t sample =
        static_cast<std::int32_t>(
            (static_cast<std::uint32_t>(static_cast<unsigned char>(pcm[i + 2])) << 24) |
            (static_cast<std::uint32_t>(static_cast<unsigned char>(pcm[i + 1])) << 16) |
            (static_cast<std::uint32_t>(static_cast<unsigned char>(pcm[i])) << 8)) >>
        8;
    loud += std::abs(sample) > (1 << 21);
  }
  // All but the edges of the square wave are at full amplitude.
  EXPECT_GT(loud, static_cast<long>(pcm.size() / 3 * 9 / 10)) << loud;
}

// Lip-sync measured at the outputs: the bars clips' flash frame reaching the picture sinks
// against its beep reaching the audio sink (a clocked fakesink), every feed within one frame
// period (33.4 ms at 29.97) with five decoders running.
TEST(AudioLipSync, FiveBarsFeedsPlayTheirSoundWithinAFrameOfThePicture) {
  auto dir = test::scratch_dir("audio-lip-sync");
  ::setenv("HDSTREAM_MEDIA_CACHE", HDSTREAM_MEDIA_CACHE, 1);
  const std::string address = "127.0.0.1:" + std::to_string(test::free_port());
  test::Process recv({HDSTREAM_BINARY, "recv", "--listen", address, "--streams", "5", "--output",
                      "null", "--audio-output", "null", "--duration", "60s", "--stats", "json",
                      "--stats-file", (dir / "r.jsonl").string()},
                     dir, "recv");
  test::Process send({HDSTREAM_BINARY, "send", "--dest", address, "--streams", "5", "--format",
                      "dnxhd220", "--duration", "4s"},
                     dir, "send");
  ASSERT_EQ(send.wait(90s), 0) << send.err();
  ASSERT_EQ(recv.wait(90s), 0) << recv.err();
  const auto lines = test::json_lines(test::read_file(dir / "r.jsonl"));
  for (int stream = 0; stream < 5; ++stream) {
    nlohmann::json media;
    for (const auto& line : lines) {
      if (line["type"] == "media" && line["stream"] == stream) media = line;
    }
    ASSERT_TRUE(media.contains("av_offset_ms")) << stream;
    ASSERT_TRUE(media["av_offset_ms"].is_number()) << "no sync marker measured: " << media;
    EXPECT_LE(std::abs(media["av_offset_ms"].get<double>()), 1001.0 / 30.0) << media;
    EXPECT_EQ(media["audio_channels"], 2);
    EXPECT_EQ(media["audio_gaps"], 0);
  }
}

// A feed whose sound has gone silent raises its alarm after --silence-alarm, and one with sound
// beside it does not. The pictures are a pre-encoded clip (sent as stored): two live DNxHD
// encodes need ~1.5 of this machine's 2 cores and made the sender miss its frames when a
// neighbouring test was busy, which is the encoder's capacity, not this behaviour.
TEST(AudioSources, ASilentFeedRaisesTheSilenceAlarmAndASoundingOneDoesNot) {
  auto dir = test::scratch_dir("audio-silence");
  const auto clip = test::dnxhd_clip(HDSTREAM_MEDIA_CACHE, 30);
  const std::string address = "127.0.0.1:" + std::to_string(test::free_port());
  test::Process recv({HDSTREAM_BINARY, "recv", "--listen", address, "--streams", "2", "--output",
                      "null", "--audio-output", "null", "--silence-alarm", "1s", "--duration",
                      "60s", "--stats", "json", "--stats-file", (dir / "r.jsonl").string()},
                     dir, "recv");
  test::Process send(
      {HDSTREAM_BINARY, "send", "--dest", address, "--streams", "2", "--format", "dnxhd220",
       "--source", "file:" + clip.string(), "--audio-source", "audiotestsrc wave=silence",
       "--audio-source", "audiotestsrc wave=sine", "--duration", "3s"},
      dir, "send");
  ASSERT_EQ(send.wait(90s), 0) << send.err();
  ASSERT_EQ(recv.wait(90s), 0) << recv.err();
  nlohmann::json media[2];
  for (auto& line : test::json_lines(test::read_file(dir / "r.jsonl"))) {
    if (line["type"] == "media") media[line["stream"].get<int>()] = line;
  }
  EXPECT_EQ(media[0]["audio_silent"], true) << media[0];
  EXPECT_EQ(media[0]["audio_levels"][0]["peak_dbfs"], -120.0) << media[0];
  EXPECT_EQ(media[1]["audio_silent"], false) << media[1];
  EXPECT_GT(media[1]["audio_levels"][0]["peak_dbfs"].get<double>(), -10.0) << media[1];
}

TEST(AudioSources, BadSoundSpecsAreOneClearLineAndExit2) {
  auto dir = test::scratch_dir("audio-cli");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--format", "synthetic", "--audio-source", "audiotestsrc"},
       "synthetic frames carry no sound"},
      {{"--format", "dnxhd220", "--source", "videotestsrc", "--audio-source", "nosuchaudiosrc"},
       "nosuchaudiosrc"},
      {{"--format", "dnxhd220", "--source", "videotestsrc", "--audio-source", "audiotestsrc",
        "--audio-channels", "17"},
       "--audio-channels"},
      {{"--streams", "3", "--format", "dnxhd220", "--source", "videotestsrc", "--audio-source",
        "audiotestsrc", "--audio-source", "audiotestsrc"},
       "--audio-source given 2 times for 3 streams"},
  };
  int index = 0;
  for (const auto& [extra, names] : cases) {
    std::vector<std::string> args{HDSTREAM_BINARY, "send", "--dest", "127.0.0.1:9"};
    args.insert(args.end(), extra.begin(), extra.end());
    test::Process run(args, dir, "case" + std::to_string(index++));
    EXPECT_EQ(run.wait(30s), 2) << names << "\n" << run.err();
    const std::string err = run.err();
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_NE(err.find("hdstream: error:"), std::string::npos) << err;
    EXPECT_NE(err.find(names), std::string::npos) << err;
  }
}

INSTANTIATE_TEST_SUITE_P(Transports, AudioLoopback,
                         ::testing::Values(std::vector<std::string>{"--transport", "tcp"},
                                           std::vector<std::string>{"--transport", "mtcp",
                                                                    "--conns", "4"},
                                           std::vector<std::string>{"--transport", "srt"}),
                         [](const auto& param_info) { return param_info.param[1]; });

}  // namespace
}  // namespace hdstream
