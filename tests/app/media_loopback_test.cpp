// Real video between two hdstream processes on loopback: pass-through clips recorded
// bit-exact, live GStreamer sources encoded, five DNxHD feeds decoded with zero drops, a slow
// decoder that drops (counted) without stalling the network, and clear errors for bad specs.
#include <gtest/gtest.h>

#include <cmath>
#include <csignal>
#include <cstdlib>
#include <map>

#include "tests/support/recorded_file.hpp"
#include "tests/media/clip_fixture.hpp"
#include "tests/support/process.hpp"
#include "tests/support/stats_lines.hpp"
#include "tests/support/x_server.hpp"

namespace hdstream {
namespace {

using namespace std::chrono_literals;

// Per-packet MD5s of a file's video stream as stored (no decode): ffmpeg -c copy -f framemd5.
std::vector<std::string> packet_md5s(const std::filesystem::path& file,
                                     const std::filesystem::path& dir) {
  const auto out = dir / (file.filename().string() + ".framemd5");
  const std::string command = "ffmpeg -v error -y -i '" + file.string() +
                              "' -map 0:v:0 -c copy -f framemd5 '" + out.string() + "'";
  if (std::system(command.c_str()) != 0) return {};
  std::vector<std::string> md5s;
  std::istringstream in(test::read_file(out));
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    md5s.push_back(line.substr(line.rfind(',') + 1));
  }
  return md5s;
}

std::vector<nlohmann::json> media_lines(const std::string& text, int stream) {
  std::vector<nlohmann::json> lines;
  for (auto& line : test::json_lines(text)) {
    if (line["type"] == "media" && line["stream"] == stream) lines.push_back(line);
  }
  return lines;
}

class MediaLoopback : public ::testing::Test {
 protected:
  void SetUp() override {
    // Clips the tests and "bars" need are made once, in the build tree.
    ::setenv("HDSTREAM_MEDIA_CACHE", HDSTREAM_MEDIA_CACHE, 1);
  }
};

// Recorded and shown at once (a multiview under a real X server): the recording is frame for
// frame, byte for byte, the source while the screen shows the pictures.
TEST_F(MediaLoopback, PassThroughClipIsRecordedBitExactFrameForFrameWhileShown) {
  auto dir = test::scratch_dir("media-exact");
  const auto clip = test::dnxhd_clip(HDSTREAM_MEDIA_CACHE, 30);
  auto x = test::XServer::xvfb({"1280x720"}, dir);
  const std::string address = "127.0.0.1:" + std::to_string(test::free_port());
  test::Process recv(
      {HDSTREAM_BINARY, "recv", "--listen", address, "--streams", "2", "--output",
       "file:" + (dir / "feed{stream}.mov").string(), "--output", "multiview", "--duration", "40s",
       "--stats", "json", "--stats-file", (dir / "r.jsonl").string()},
      dir, "recv", {x->environment()});
  test::Process send({HDSTREAM_BINARY, "send", "--dest", address, "--streams", "2", "--format",
                      "dnxhd220", "--source", "file:" + clip.string(), "--duration", "3s",
                      "--stats", "json", "--stats-file", (dir / "s.jsonl").string()},
                     dir, "send");
  // The multiview shows both feeds' pictures (bright bars in each tile) while they record.
  EXPECT_TRUE(test::eventually(
      [&] {
        const auto shot = x->capture(0);
        for (const int left : {0, 640}) {
          long bright = 0;
          for (int y = 260; y < 460; y += 4) {
            for (int px = left + 20; px < left + 620; px += 4) {
              const auto c = shot.at(px, y);
              bright += c.r + c.g + c.b > 300;
            }
          }
          if (bright < 1000) return false;
        }
        return true;
      },
      20s))
      << recv.err();
  ASSERT_EQ(send.wait(60s), 0) << send.err();
  ASSERT_EQ(recv.wait(60s), 0) << recv.err();

  const std::string received = test::read_file(dir / "r.jsonl");
  auto summary = test::find_line(received, "summary");
  ASSERT_TRUE(summary) << received;
  EXPECT_EQ((*summary)["frames"], 2 * 90);  // round(3 s x 29.97) per feed
  EXPECT_EQ((*summary)["drops"], 0);

  const auto source = packet_md5s(clip, dir);
  ASSERT_EQ(source.size(), 30u);
  for (int stream = 0; stream < 2; ++stream) {
    const auto file = dir / ("feed" + std::to_string(stream) + ".mov");
    const auto [codec, packets] = test::probe(file, dir);
    EXPECT_EQ(codec, "dnxhd");
    EXPECT_EQ(packets, 90);
    const auto recorded = packet_md5s(file, dir);
    ASSERT_EQ(recorded.size(), 90u) << file;
    for (std::size_t i = 0; i < recorded.size(); ++i) {
      EXPECT_EQ(recorded[i], source[i % source.size()]) << "stream " << stream << " frame " << i;
    }
    auto media = media_lines(received, stream);
    ASSERT_FALSE(media.empty());
    EXPECT_EQ(media.back()["frames_decoded"], 90);
    EXPECT_EQ(media.back()["decode_errors"], 0);
    EXPECT_EQ(media.back()["dropped_before_decode"], 0);
    EXPECT_GT(media.back()["latency_ms_p99"].get<double>(), 0.0);
  }
}

TEST_F(MediaLoopback, RecordingInterruptedBySigintIsStillPlayable) {
  auto dir = test::scratch_dir("media-sigint");
  const auto clip = test::dnxhd_clip(HDSTREAM_MEDIA_CACHE, 30);
  const std::string address = "127.0.0.1:" + std::to_string(test::free_port());
  test::Process recv(
      {HDSTREAM_BINARY, "recv", "--listen", address, "--output",
       "file:" + (dir / "feed{stream}.mkv").string(), "--stats", "json", "--interval", "100ms"},
      dir, "recv");
  test::Process send({HDSTREAM_BINARY, "send", "--dest", address, "--format", "dnxhd220",
                      "--source", "file:" + clip.string()},
                     dir, "send");
  ASSERT_TRUE(test::eventually([&] {
    auto media = media_lines(recv.out(), 0);
    return !media.empty() && media.back()["frames_decoded"].get<int>() >= 20;
  }));
  recv.signal(SIGINT);
  EXPECT_EQ(recv.wait(30s), 130) << recv.err();
  send.signal(SIGINT);
  send.wait(30s);

  auto summary = test::find_line(recv.out(), "summary");
  ASSERT_TRUE(summary);
  const auto [codec, packets] = test::probe(dir / "feed0.mkv", dir);
  EXPECT_EQ(codec, "dnxhd");
  EXPECT_GE(packets, 20);
  EXPECT_EQ(packets, (*summary)["frames"].get<long>());
}

TEST_F(MediaLoopback, LiveVideotestsrcIsEncodedToDnxhdAndEveryFrameDecodes) {
  auto dir = test::scratch_dir("media-encode");
  const std::string address = "127.0.0.1:" + std::to_string(test::free_port());
  test::Process recv(
      {HDSTREAM_BINARY, "recv", "--listen", address, "--output", "null", "--duration", "40s",
       "--stats", "json", "--stats-file", (dir / "r.jsonl").string()},
      dir, "recv");
  test::Process send({HDSTREAM_BINARY, "send", "--dest", address, "--format", "dnxhd220",
                      "--source", "videotestsrc pattern=ball", "--duration", "2s", "--stats",
                      "json", "--stats-file", (dir / "s.jsonl").string()},
                     dir, "send");
  ASSERT_EQ(send.wait(60s), 0) << send.err();
  ASSERT_EQ(recv.wait(60s), 0) << recv.err();
  auto sent = test::find_line(test::read_file(dir / "s.jsonl"), "summary");
  const std::string received = test::read_file(dir / "r.jsonl");
  auto media = media_lines(received, 0);
  ASSERT_TRUE(sent && !media.empty());
  EXPECT_EQ((*sent)["frames"], 60);
  EXPECT_EQ(media.back()["frames_decoded"], (*sent)["frames"]);
  EXPECT_EQ(media.back()["decode_errors"], 0);
}

TEST_F(MediaLoopback, FiveDnxhd220FeedsForTenSecondsDecodeWithZeroDrops) {
  auto dir = test::scratch_dir("media-five");
  const std::string address = "127.0.0.1:" + std::to_string(test::free_port());
  test::Process recv(
      {HDSTREAM_BINARY, "recv", "--listen", address, "--streams", "5", "--output", "null",
       "--duration", "60s", "--stats", "json", "--stats-file", (dir / "r.jsonl").string()},
      dir, "recv");
  test::Process send(
      {HDSTREAM_BINARY, "send", "--dest", address, "--streams", "5", "--format", "dnxhd220",
       "--duration", "10s", "--stats", "json", "--stats-file", (dir / "s.jsonl").string()},
      dir, "send");
  ASSERT_EQ(send.wait(90s), 0) << send.err();
  ASSERT_EQ(recv.wait(90s), 0) << recv.err();
  const std::string received = test::read_file(dir / "r.jsonl");
  auto summary = test::find_line(received, "summary");
  ASSERT_TRUE(summary);
  EXPECT_EQ((*summary)["frames"], 1500);
  EXPECT_EQ((*summary)["drops"], 0);
  EXPECT_EQ((*summary)["verdict"], "pass");
  for (int stream = 0; stream < 5; ++stream) {
    auto media = media_lines(received, stream);
    ASSERT_FALSE(media.empty());
    EXPECT_EQ(media.back()["frames_decoded"], 300) << stream;
    EXPECT_EQ(media.back()["dropped_before_decode"], 0) << stream;
    std::cout << "stream " << stream << " added latency p50 " << media.back()["latency_ms_p50"]
              << " ms, p99 " << media.back()["latency_ms_p99"] << " ms\n";
  }
}

TEST_F(MediaLoopback, ASlowDecoderDropsCountedFramesWhileTheNetworkKeepsUp) {
  auto dir = test::scratch_dir("media-slow");
  const std::string address = "127.0.0.1:" + std::to_string(test::free_port());
  // 100 ms per frame: a decoder at a third of the feed rate.
  test::Process recv({HDSTREAM_BINARY, "recv", "--listen", address, "--output", "null",
                      "--debug-decode-delay", "100ms", "--decode-queue", "4", "--duration", "40s",
                      "--stats", "json", "--stats-file", (dir / "r.jsonl").string()},
                     dir, "recv");
  test::Process send(
      {HDSTREAM_BINARY, "send", "--dest", address, "--format", "dnxhd220", "--duration", "4s",
       "--stats", "json", "--stats-file", (dir / "s.jsonl").string()},
      dir, "send");
  // Both ran, and both verdicts fail on the decoder's drops: the sender's is end to end.
  ASSERT_EQ(send.wait(60s), 3) << send.err();
  EXPECT_EQ(recv.wait(60s), 3) << recv.err();
  auto sent = test::find_line(test::read_file(dir / "s.jsonl"), "summary");
  const std::string received = test::read_file(dir / "r.jsonl");
  auto summary = test::find_line(received, "summary");
  auto media = media_lines(received, 0);
  ASSERT_TRUE(sent && summary && !media.empty());
  EXPECT_EQ((*sent)["drops"], 0);                      // the network never held the sender back
  EXPECT_EQ((*summary)["frames"], (*sent)["frames"]);  // every frame crossed the network
  const auto decoded = media.back()["frames_decoded"].get<long>();
  const auto dropped = media.back()["dropped_before_decode"].get<long>();
  EXPECT_GT(dropped, 0);
  EXPECT_EQ((*summary)["drops"].get<long>(), dropped);
  EXPECT_EQ(decoded + dropped, (*summary)["frames"].get<long>());
  // The feed (bars) has sound: its pictures wait for their sound in a queue of twice
  // --decode-queue, and no deeper.
  for (const auto& line : media_lines(received, 0)) EXPECT_LE(line["queue_depth"].get<int>(), 8);
  // The sender heard about them over FEEDBACK: its last far-end report has the final count.
  auto far_end = test::find_line(test::read_file(dir / "s.jsonl"), "far_end");
  ASSERT_TRUE(far_end);
  EXPECT_EQ((*far_end)["drops"].get<long>(), dropped);
}

TEST(MediaCli, BadSpecsAreOneClearLineAndExit2) {
  auto dir = test::scratch_dir("media-cli");
  const std::vector<std::vector<std::string>> cases = {
      {"send", "--dest", "127.0.0.1:9", "--format", "dnxhd221"},
      {"send", "--dest", "127.0.0.1:9", "--format", "dnxhd220", "--source", "nosuchsrc123"},
      {"send", "--dest", "127.0.0.1:9", "--format", "dnxhd220", "--source", "file:/no/such.mov"},
      {"send", "--dest", "127.0.0.1:9", "--format", "synthetic", "--source", "videotestsrc"},
      {"send", "--dest", "127.0.0.1:9", "--streams", "3", "--format", "dnxhd220", "--source",
       "videotestsrc", "--source", "videotestsrc"},
      {"recv", "--listen", "127.0.0.1:0", "--output", "projector"},
      {"recv", "--listen", "127.0.0.1:0", "--output", "file:/no/such/dir/f{stream}.mov"},
      {"recv", "--listen", "127.0.0.1:0", "--streams", "2", "--output", "file:/tmp/one.mov"},
  };
  int index = 0;
  for (auto args : cases) {
    args.insert(args.begin(), HDSTREAM_BINARY);
    test::Process run(args, dir, "case" + std::to_string(index++));
    EXPECT_EQ(run.wait(30s), 2) << args[args.size() - 1] << "\n" << run.err();
    const std::string err = run.err();
    // One line of ours (libraries may not add their own noise either).
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_NE(err.find("hdstream: error:"), std::string::npos) << err;
  }
}

TEST(MediaDisplay, DemoShowsWindowsUnderXvfb) {
  if (std::system("command -v xvfb-run > /dev/null 2>&1") != 0) {
    GTEST_SKIP() << "xvfb-run not installed (apt-get install xvfb): display not tested";
  }
  auto dir = test::scratch_dir("media-display");
  ::setenv("HDSTREAM_MEDIA_CACHE", HDSTREAM_MEDIA_CACHE, 1);
  test::Process demo(
      {"/usr/bin/xvfb-run", "-a", "-s", "-screen 0 1920x1080x24", HDSTREAM_BINARY, "demo",
       "--streams", "2", "--duration", "3s", "--output", "display", "--stats", "json"},
      dir, "demo");
  const auto code = demo.wait(90s);
  ASSERT_TRUE(code) << demo.err();
  EXPECT_EQ(demo.err().find("decoding continues without"), std::string::npos) << demo.err();
  // A paced 29.97 fps feed for 3 s carries round(3 x 29.97) = 90 frames; each reached the
  // display's decoder and was decoded, or was counted as dropped before decoding or as a
  // decode error. Those counts are the only slack, and a passing run (exit 0) has none.
  const long carried = std::lround(3.0 * 30000.0 / 1001.0);
  for (int stream = 0; stream < 2; ++stream) {
    auto media = media_lines(demo.out(), stream);
    ASSERT_FALSE(media.empty()) << demo.out();
    const long decoded = media.back()["frames_decoded"].get<long>();
    const long dropped = media.back()["dropped_before_decode"].get<long>();
    const long errors = media.back()["decode_errors"].get<long>();
    EXPECT_EQ(decoded + dropped + errors, carried) << media.back();
    if (*code == 0) {
      EXPECT_EQ(decoded, carried) << media.back();
    }
  }
  EXPECT_EQ(*code, 0) << "the display's decoders dropped frames: " << demo.err();
}

}  // namespace
}  // namespace hdstream
