// hdstream's own MPEG-TS output (`send --transport srt --mux ts`) read by the real tools:
// ffprobe listening on srt://, srt-live-transmit recording to a file (with and without the
// right passphrase), and hdstream's own `recv --mux ts`; and the usage errors around it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

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

TEST_F(TsOutput, FfprobeListeningOnSrtSeesMpeg2VideoAtTheFeedsSizeAndRate) {
  auto dir = test::scratch_dir("ts-ffprobe");
  const std::string port = std::to_string(test::free_port());
  test::Process ffprobe({"/usr/bin/ffprobe", "-v", "error", "-show_streams", "-of", "json",
                         "srt://127.0.0.1:" + port + "?mode=listener"},
                        dir, "ffprobe");
  // The sender retries its connection until ffprobe listens.
  test::Process send(send_ts(port, "dnxhd220", "10s"), dir, "send");
  ASSERT_EQ(ffprobe.wait(60s), 0) << ffprobe.err() << send.err();
  const auto streams = nlohmann::json::parse(ffprobe.out())["streams"];
  ASSERT_EQ(streams.size(), 1u) << ffprobe.out();
  EXPECT_EQ(streams[0]["codec_type"], "video");
  EXPECT_EQ(streams[0]["codec_name"], "mpeg2video");
  EXPECT_EQ(streams[0]["profile"], "4:2:2");
  EXPECT_EQ(streams[0]["width"], 1920);
  EXPECT_EQ(streams[0]["height"], 1080);
  EXPECT_EQ(streams[0]["r_frame_rate"], "30000/1001");
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
