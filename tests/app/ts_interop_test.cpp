// Interoperability over SRT with the real tools: hdstream recv --mux ts ingests ffmpeg's
// MPEG-TS (mpeg2video from lavfi), decodes it and reports frames at the stream's frame rate.
#include <gtest/gtest.h>

#include "tests/support/process.hpp"
#include "tests/support/stats_lines.hpp"

namespace hdstream {
namespace {

using namespace std::chrono_literals;

TEST(TsInterop, RecvIngestsFfmpegMpegTsOverSrt) {
  auto dir = test::scratch_dir("ts-ingest");
  const std::string port = std::to_string(test::free_port());
  test::Process recv(
      {HDSTREAM_BINARY, "recv", "--listen", "127.0.0.1:" + port, "--transport", "srt", "--mux",
       "ts", "--duration", "60s", "--stats", "json", "--stats-file", (dir / "r.jsonl").string()},
      dir, "recv");
  ASSERT_TRUE(test::eventually([&] { return recv.err().find("listening") != std::string::npos; }));
  test::Process ffmpeg({"/usr/bin/ffmpeg", "-nostdin", "-loglevel", "error", "-re", "-f", "lavfi",
                        "-i", "testsrc2=size=1280x720:rate=30", "-t", "4", "-c:v", "mpeg2video",
                        "-b:v", "8M", "-f", "mpegts", "srt://127.0.0.1:" + port + "?mode=caller"},
                       dir, "ffmpeg");
  ASSERT_EQ(ffmpeg.wait(60s), 0) << ffmpeg.err();
  ASSERT_TRUE(test::eventually([&] { return recv.err().find("ended") != std::string::npos; }, 10s))
      << recv.err();
  recv.signal(SIGINT);
  recv.wait(10s);
  EXPECT_NE(recv.err().find("mpeg2video 1280x720 @ 30.00 fps"), std::string::npos) << recv.err();
  const std::string stats = test::read_file(dir / "r.jsonl");
  auto summary = test::find_line(stats, "summary");
  ASSERT_TRUE(summary) << stats;
  // 4 s at 30 fps: 120 pictures, less the few before the first one the decoder can start on.
  EXPECT_GE((*summary)["frames"].get<int>(), 100);
  EXPECT_LE((*summary)["frames"].get<int>(), 120);
  EXPECT_EQ((*summary)["drops"], 0);
  EXPECT_GT((*summary)["bytes"].get<std::int64_t>(), 1'000'000);
}

}  // namespace
}  // namespace hdstream
