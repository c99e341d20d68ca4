// hdstream's own MPEG-TS output (`send --transport srt --mux ts`) read by the real tools:
// ffprobe listening on srt://, srt-live-transmit recording to a file (with and without the
// right passphrase), and hdstream's own `recv --mux ts`, which plays and records the sound
// (302M sample for sample, AAC where asked); and the usage errors around it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "tests/media/sound_fixture.hpp"
#include "tests/mux/ts_receiver.hpp"
#include "tests/support/process.hpp"
#include "tests/support/stats_lines.hpp"

namespace hdstream {
namespace {

using namespace std::chrono_literals;

class TsOutput : public ::testing::Test {
 protected:
  void SetUp() override {
    // The dnxhd220 format's default source, `bars`, is a clip made once in the build tree.
    ::setenv("HDSTREAM_MEDIA_CACHE", HDSTREAM_MEDIA_CACHE, 1);
  }
};

std::vector<std::string> send_ts(const std::string& port, const std::string& format,
                                 const std::string& duration) {
  return {HDSTREAM_BINARY, "send", "--dest",     "127.0.0.1:" + port,
          "--transport",   "srt",  "--mux",      "ts",
          "--format",      format, "--duration", duration};
}

// ffprobe's view of a recorded file's first video stream, with the frames it decoded.
nlohmann::json probe_file(const std::filesystem::path& file, const std::filesystem::path& dir) {
  test::Process ffprobe({"/usr/bin/ffprobe", "-v", "error", "-count_frames", "-select_streams",
                         "v:0", "-show_streams", "-of", "json", file.string()},
                        dir, "ffprobe-file");
  if (ffprobe.wait(60s) != 0) return {};
  auto streams = nlohmann::json::parse(ffprobe.out())["streams"];
  return streams.empty() ? nlohmann::json{} : streams[0];
}

// ffprobe listening on srt:// for one `send --mux ts` with `more` arguments: the streams it saw.
nlohmann::json probe_srt(const std::filesystem::path& dir, const std::vector<std::string>& more) {
  const std::string port = std::to_string(test::free_port());
  test::Process ffprobe({"/usr/bin/ffprobe", "-v", "error", "-show_streams", "-of", "json",
                         "srt://127.0.0.1:" + port + "?mode=listener"},
                        dir, "ffprobe");
  auto args = send_ts(port, "dnxhd220", "10s");
  args.insert(args.end(), more.begin(), more.end());
  test::Process send(args, dir, "send");  // retries its connection until ffprobe listens
  if (ffprobe.wait(60s) != 0) {
    ADD_FAILURE() << ffprobe.err() << send.err();
    return {};
  }
  send.wait(15s);
  return nlohmann::json::parse(ffprobe.out())["streams"];
}

const nlohmann::json* find_stream(const nlohmann::json& streams, const std::string& type) {
  for (const auto& stream : streams) {
    if (stream["codec_type"] == type) return &stream;
  }
  return nullptr;
}

TEST_F(TsOutput, FfprobeSeesAacWhereTsAudioAsksForIt) {
  auto dir = test::scratch_dir("ts-ffprobe-aac");
  const auto streams = probe_srt(dir, {"--ts-audio", "aac"});
  const auto* sound = find_stream(streams, "audio");
  ASSERT_TRUE(sound) << streams;
  EXPECT_EQ((*sound)["codec_name"], "aac");
  EXPECT_EQ((*sound)["profile"], "LC");
  EXPECT_EQ((*sound)["channels"], 2);
  EXPECT_EQ((*sound)["sample_rate"], "48000");
}

TEST_F(TsOutput, FfprobeListeningOnSrtSeesMpeg2VideoAndSmpte302mSound) {
  auto dir = test::scratch_dir("ts-ffprobe");
  const std::string port = std::to_string(test::free_port());
  test::Process ffprobe({"/usr/bin/ffprobe", "-v", "error", "-show_streams", "-of", "json",
                         "srt://127.0.0.1:" + port + "?mode=listener"},
                        dir, "ffprobe");
  // The sender retries its connection until ffprobe listens.
  test::Process send(send_ts(port, "dnxhd220", "10s"), dir, "send");
  ASSERT_EQ(ffprobe.wait(60s), 0) << ffprobe.err() << send.err();
  const auto streams = nlohmann::json::parse(ffprobe.out())["streams"];
  ASSERT_EQ(streams.size(), 2u) << ffprobe.out();  // the picture and the bars' sound
  EXPECT_EQ(streams[0]["codec_type"], "video");
  EXPECT_EQ(streams[0]["codec_name"], "mpeg2video");
  EXPECT_EQ(streams[0]["profile"], "4:2:2");
  EXPECT_EQ(streams[0]["width"], 1920);
  EXPECT_EQ(streams[0]["height"], 1080);
  EXPECT_EQ(streams[0]["r_frame_rate"], "30000/1001");
  EXPECT_EQ(streams[1]["codec_type"], "audio");
  EXPECT_EQ(streams[1]["codec_name"], "s302m");
  EXPECT_EQ(streams[1]["channels"], 2);
  EXPECT_EQ(streams[1]["sample_rate"], "48000");
  EXPECT_EQ(streams[1]["bits_per_raw_sample"], "24");
  // ffprobe hangs up once it has seen enough: the sender notices and ends, in bounded time.
  const auto code = send.wait(15s);
  ASSERT_TRUE(code) << send.err();
  EXPECT_NE(send.err().find("SRT connection to 127.0.0.1:" + port + " lost"), std::string::npos)
      << send.err();
}

TEST_F(TsOutput, SrtLiveTransmitRecordsAStreamFfprobePlays) {
  auto dir = test::scratch_dir("ts-slt");
  const std::string port = std::to_string(test::free_port());
  // -a:no: exit when the caller disconnects. file://con writes the TS to stdout (slt.out).
  test::Process slt(
      {"/usr/bin/srt-live-transmit", "-a:no", "srt://:" + port + "?mode=listener", "file://con"},
      dir, "slt");
  // The sdi270 clip from the cache, not the format's live videotestsrc: a live source on a
  // loaded machine misses frames (exit 3), a clip always has the next one ready.
  auto args = send_ts(port, "sdi270", "3s");
  args.insert(args.end(),
              {"--source", "bars", "--stats", "json", "--stats-file", (dir / "s.jsonl").string()});
  test::Process send(args, dir, "send");
  ASSERT_EQ(send.wait(30s), 0) << send.err();
  ASSERT_EQ(slt.wait(15s), 0) << slt.err();

  auto summary = test::find_line(test::read_file(dir / "s.jsonl"), "summary");
  ASSERT_TRUE(summary);
  const int frames = (*summary)["frames"].get<int>();
  EXPECT_EQ(frames, 90);  // round(3 s x 29.97 fps)
  EXPECT_EQ((*summary)["drops"], 0);
  // bytes are the TS bytes sent: all of them reached the file.
  EXPECT_EQ((*summary)["bytes"].get<std::uintmax_t>(), std::filesystem::file_size(dir / "slt.out"));
  // Constant bit rate: 50 Mb/s MPEG-2 plus TS overhead.
  EXPECT_GE((*summary)["mbps"].get<double>(), 47.0);
  EXPECT_LE((*summary)["mbps"].get<double>(), 55.0);

  const auto stream = probe_file(dir / "slt.out", dir);
  ASSERT_FALSE(stream.is_null()) << test::read_file(dir / "ffprobe-file.err");
  EXPECT_EQ(stream["codec_name"], "mpeg2video");
  EXPECT_EQ(stream["width"], 720);
  EXPECT_EQ(stream["height"], 486);
  EXPECT_EQ(stream["r_frame_rate"], "30000/1001");
  EXPECT_EQ(stream["nb_read_frames"], std::to_string(frames));  // every picture sent
}

TEST_F(TsOutput, SrtLiveTransmitWithThePassphraseReadsItAWrongOneIsRefused) {
  auto dir = test::scratch_dir("ts-slt-key");
  {
    std::ofstream key(dir / "key");
    key << "studio feed passphrase\n";
  }
  const std::string right = std::to_string(test::free_port());
  test::Process slt(
      {"/usr/bin/srt-live-transmit", "-a:no",
       "srt://:" + right + "?mode=listener&passphrase=studio feed passphrase", "file://con"},
      dir, "slt");
  auto args = send_ts(right, "sdi270", "2s");
  args.insert(args.end(), {"--source", "bars", "--key-file", (dir / "key").string()});
  test::Process send(args, dir, "send");
  ASSERT_EQ(send.wait(30s), 0) << send.err();  // a clip source: no frame is ever missing
  EXPECT_NE(send.err().find("AES-128"), std::string::npos) << send.err();
  ASSERT_EQ(slt.wait(15s), 0) << slt.err();
  const auto stream = probe_file(dir / "slt.out", dir);
  ASSERT_FALSE(stream.is_null()) << test::read_file(dir / "ffprobe-file.err");
  EXPECT_EQ(stream["codec_name"], "mpeg2video");
  EXPECT_EQ(stream["nb_read_frames"], "60");  // round(2 s x 29.97 fps), every one recorded

  const std::string wrong = std::to_string(test::free_port());
  test::Process stranger(
      {"/usr/bin/srt-live-transmit", "-a:no",
       "srt://:" + wrong + "?mode=listener&passphrase=somebody else's key", "file://con"},
      dir, "slt-wrong");
  auto refused_args = send_ts(wrong, "sdi270", "2s");
  refused_args.insert(refused_args.end(), {"--key-file", (dir / "key").string()});
  test::Process refused(refused_args, dir, "send-wrong");
  EXPECT_EQ(refused.wait(30s), 1) << refused.err();
  EXPECT_NE(refused.err().find("wrong passphrase"), std::string::npos) << refused.err();
  EXPECT_TRUE(
      test::eventually([&] { return stranger.err().find("passphrase") != std::string::npos; }, 10s))
      << stranger.err();
  EXPECT_EQ(std::filesystem::file_size(dir / "slt-wrong.out"), 0u);
}

TEST_F(TsOutput, HdstreamToHdstreamEveryFrameArrivesWithZeroDrops) {
  auto dir = test::scratch_dir("ts-hdstream");
  const std::string port = std::to_string(test::free_port());
  test::TsReceiver receiver(dir, port);
  ASSERT_TRUE(receiver.listening) << receiver.process.err();
  test::Process& recv = receiver.process;
  auto args = send_ts(port, "dnxhd220", "4s");
  args.insert(args.end(), {"--stats", "json", "--stats-file", (dir / "s.jsonl").string()});
  test::Process send(args, dir, "send");
  ASSERT_EQ(send.wait(30s), 0) << send.err();
  // The receiver ends when its one stream has ended.
  ASSERT_EQ(recv.wait(20s), 0) << recv.err();
  EXPECT_NE(recv.err().find("mpeg2video 1920x1080 @ 29.97 fps"), std::string::npos) << recv.err();

  auto sent = test::find_line(test::read_file(dir / "s.jsonl"), "summary");
  auto received = test::find_line(test::read_file(dir / "r.jsonl"), "summary");
  ASSERT_TRUE(sent && received);
  EXPECT_EQ((*sent)["frames"], 120);  // 4 s at 29.97 fps
  EXPECT_EQ((*sent)["drops"], 0);
  EXPECT_EQ((*received)["frames"], (*sent)["frames"]);
  EXPECT_EQ((*received)["drops"], 0);
  EXPECT_EQ((*received)["verdict"], "pass");
}

// 8 channels of 24-bit noise, each its own: every sample sent is in the recording, in place.
TEST_F(TsOutput, HdstreamToHdstreamRecordsAndPlaysTheSoundSampleForSample) {
  auto dir = test::scratch_dir("ts-hdstream-sound");
  const auto clip = test::clip_with_sound(HDSTREAM_MEDIA_CACHE, 8);
  ASSERT_FALSE(clip.empty());
  const std::string port = std::to_string(test::free_port());
  test::TsReceiver receiver(
      dir, port, {"--output", "file:" + (dir / "rec.mkv").string(), "--audio-output", "null"});
  ASSERT_TRUE(receiver.listening) << receiver.process.err();
  auto args = send_ts(port, "dnxhd220", "2s");  // 60 frames: the 30-frame clip twice
  args.insert(args.end(), {"--source", "file:" + clip.string()});
  test::Process send(args, dir, "send");
  ASSERT_EQ(send.wait(30s), 0) << send.err();
  ASSERT_EQ(receiver.process.wait(20s), 0) << receiver.process.err();
  EXPECT_NE(receiver.process.err().find("s302m sound"), std::string::npos)
      << receiver.process.err();

  const std::string sent = test::pcm_of(clip, dir);
  ASSERT_EQ(sent.size(), 48'048u * 8 * 3);
  EXPECT_TRUE(test::same_bytes(test::pcm_of(dir / "rec.mkv", dir), sent + sent));
  auto media = test::find_line(test::read_file(receiver.stats), "media");
  ASSERT_TRUE(media);
  EXPECT_EQ((*media)["audio_channels"], 8);
  EXPECT_EQ((*media)["audio_gaps"], 0);
  EXPECT_EQ((*media)["audio_samples_played"], 2 * 48'048);
  EXPECT_EQ((*media)["frames_recorded"], 60);
  EXPECT_EQ((*media)["frames_decoded"], 60);
  EXPECT_EQ((*media)["audio_levels"].size(), 4u);  // a meter per channel pair
}

// AAC: lossy, so the bars' levels (the sync marker's -6 dBFS beep, held; AAC overshoots its
// onset, measured +0.8 dB) and the length (the encoder's 1024 samples of priming and its padded
// last packet) are what is checked.
TEST_F(TsOutput, HdstreamToHdstreamPlaysAndRecordsAac) {
  auto dir = test::scratch_dir("ts-hdstream-aac");
  const std::string port = std::to_string(test::free_port());
  test::TsReceiver receiver(
      dir, port, {"--output", "file:" + (dir / "rec.mov").string(), "--audio-output", "null"});
  ASSERT_TRUE(receiver.listening) << receiver.process.err();
  auto args = send_ts(port, "dnxhd220", "3s");
  args.insert(args.end(), {"--ts-audio", "aac"});
  test::Process send(args, dir, "send");
  ASSERT_EQ(send.wait(30s), 0) << send.err();
  ASSERT_EQ(receiver.process.wait(20s), 0) << receiver.process.err();
  auto media = test::find_line(test::read_file(receiver.stats), "media");
  ASSERT_TRUE(media);
  EXPECT_EQ((*media)["audio_channels"], 2);
  EXPECT_EQ((*media)["audio_gaps"], 0);
  const std::uint64_t sent = 90ull * 48'000 * 1001 / 30'000;  // 90 frames at 29.97: 144,144
  const auto played = (*media)["audio_samples_played"].get<std::uint64_t>();
  EXPECT_GE(played, sent);
  EXPECT_LE(played, sent + 2 * 1024);
  EXPECT_NEAR((*media)["audio_levels"][0]["hold_dbfs"].get<double>(), -6.0, 1.5);
  EXPECT_EQ(test::pcm_of(dir / "rec.mov", dir).size(), played * 2 * 3);
}

TEST_F(TsOutput, MisuseFailsWithOneLineAndExit2) {
  auto dir = test::scratch_dir("ts-usage");
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases = {
      {send_ts("9", "synthetic", "1s"), "pick a video --format"},
      {{HDSTREAM_BINARY, "send", "--dest", "127.0.0.1:9", "--transport", "tcp", "--mux", "ts",
        "--format", "sdi270"},
       "--mux"},
      {{HDSTREAM_BINARY, "send", "--dest", "127.0.0.1:9", "--transport", "srt", "--mux", "bogus"},
       "--mux"},
      {{HDSTREAM_BINARY, "send", "--dest", "127.0.0.1:9", "--transport", "srt", "--ts-audio",
        "aac"},
       "--ts-audio: only applies to --mux ts"},
      {{HDSTREAM_BINARY, "send", "--dest", "127.0.0.1:9", "--transport", "srt", "--mux", "ts",
        "--ts-audio", "mp3"},
       "--ts-audio"},
      {[] {
         auto args = send_ts("9", "dnxhd220", "1s");
         args.insert(args.end(), {"--source", "videotestsrc", "--audio-source", "audiotestsrc",
                                  "--audio-channels", "3"});
         return args;
       }(),
       "SMPTE 302M carries 2, 4, 6 or 8 channels and this feed has 3; --ts-audio aac carries it"},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    test::Process send(cases[i].args, dir, "send" + std::to_string(i));
    EXPECT_EQ(send.wait(30s), 2) << send.err();
    const std::string err = send.err();
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_NE(err.find(cases[i].says), std::string::npos) << err;
  }
}

}  // namespace
}  // namespace hdstream
