// Interoperability over SRT with the real tools: hdstream recv --mux ts ingests ffmpeg's
// MPEG-TS (mpeg2video from lavfi) and GStreamer's (x264enc ! mpegtsmux ! srtsink), decodes it
// and reports frames at the stream's frame rate. (hdstream's own TS output: ts_output_test.cpp.)
#include <gtest/gtest.h>

#include "tests/mux/ts_receiver.hpp"
#include "tests/support/process.hpp"
#include "tests/support/stats_lines.hpp"

namespace hdstream {
namespace {

using namespace std::chrono_literals;

TEST(TsInterop, RecvIngestsFfmpegMpegTsOverSrt) {
  auto dir = test::scratch_dir("ts-ingest");
  const std::string port = std::to_string(test::free_port());
  test::TsReceiver receiver(dir, port);
  ASSERT_TRUE(receiver.listening) << receiver.process.err();
  test::Process& recv = receiver.process;
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

// GStreamer as the sender. x264enc (gstreamer1.0-plugins-ugly), not avenc_mpeg2video: Debian
// 12's gst-libav 1.22.0 hands FFmpeg 5.1 a 1/1000000000 time base, which its MPEG-1/2 encoder
// refuses ("does not support 1000000000/1 fps") and its MPEG-4 encoder squeezes to 65535 fps.
TEST(TsInterop, RecvIngestsGStreamerMpegTsOverSrt) {
  auto dir = test::scratch_dir("ts-gst-ingest");
  const std::string port = std::to_string(test::free_port());
  test::TsReceiver receiver(dir, port);
  ASSERT_TRUE(receiver.listening) << receiver.process.err();
  test::Process& recv = receiver.process;
  test::Process gst({"/usr/bin/gst-launch-1.0",
                     "-q",
                     "videotestsrc",
                     "num-buffers=180",
                     "is-live=true",
                     "!",
                     "video/x-raw,width=1280,height=720,framerate=30/1",
                     "!",
                     "videoconvert",
                     "!",
                     "x264enc",
                     "tune=zerolatency",
                     "speed-preset=ultrafast",
                     "bitrate=4000",
                     "key-int-max=30",
                     "!",
                     "mpegtsmux",
                     "!",
                     "srtsink",
                     "uri=srt://127.0.0.1:" + port + "?mode=caller",
                     "wait-for-connection=false"},
                    dir, "gst");
  ASSERT_EQ(gst.wait(60s), 0) << gst.err();
  // The receiver ends when its one stream has ended.
  ASSERT_EQ(recv.wait(20s), 0) << recv.err();
  EXPECT_NE(recv.err().find("h264 1280x720 @ 30.00 fps"), std::string::npos) << recv.err();
  const std::string stats = test::read_file(dir / "r.jsonl");
  auto summary = test::find_line(stats, "summary");
  ASSERT_TRUE(summary) << stats;
  // 6 s at 30 fps: 180 pictures, less the few before the first the decoder can start on.
  EXPECT_GE((*summary)["frames"].get<int>(), 170);
  EXPECT_LE((*summary)["frames"].get<int>(), 180);
  EXPECT_EQ((*summary)["drops"], 0);
  // Once running, pictures arrive at the stream's 30 fps, not as fast as they can be read: the
  // one-second intervals after the first (which includes the receiver's stream analysis) and
  // before the last count 30 new frames each on average. (Averaged: one late picture from a
  // busy encoder moves a frame between neighbouring intervals, not the rate.)
  std::vector<int> counts;
  for (const auto& line : test::json_lines(stats)) {
    if (line["type"] == "interval" && line["frames"].get<int>() > 0) {
      counts.push_back(line["frames"].get<int>());
    }
  }
  ASSERT_GE(counts.size(), 4u) << stats;
  const double per_interval = static_cast<double>(counts[counts.size() - 2] - counts[1]) /
                              static_cast<double>(counts.size() - 3);
  EXPECT_NEAR(per_interval, 30.0, 2.0) << stats;
}

}  // namespace
}  // namespace hdstream
