// Interoperability over SRT with the real tools: hdstream recv --mux ts ingests ffmpeg's
// MPEG-TS (mpeg2video from lavfi) and GStreamer's (x264enc ! mpegtsmux ! srtsink), decodes it
// and reports frames at the stream's frame rate; ffmpeg's SMPTE 302M sound is recorded sample
// for sample. (hdstream's own TS output: ts_output_test.cpp.)
#include <gtest/gtest.h>

#include "tests/media/sound_fixture.hpp"
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

// The sound broadcast TS gear carries: ffmpeg's 302M from a 24-bit WAV (4 channels, each its
// own), recorded by `recv --mux ts --output file:` beside the picture, every sample, and played.
// (linger: ffmpeg's SRT socket otherwise closes with its last packets unsent.)
TEST(TsInterop, RecvRecordsFfmpegSmpte302mSoundSampleForSample) {
  auto dir = test::scratch_dir("ts-ingest-302m");
  test::Process wav({"/usr/bin/ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i",
                     "aevalsrc=exprs=" + test::channel_expressions(4) + ":s=48000", "-t", "3",
                     "-c:a", "pcm_s24le", (dir / "sound.wav").string()},
                    dir, "wav");
  ASSERT_EQ(wav.wait(60s), 0) << wav.err();
  const std::string port = std::to_string(test::free_port());
  test::TsReceiver receiver(
      dir, port, {"--output", "file:" + (dir / "rec.mkv").string(), "--audio-output", "null"});
  ASSERT_TRUE(receiver.listening) << receiver.process.err();
  test::Process ffmpeg({"/usr/bin/ffmpeg",
                        "-nostdin",
                        "-v",
                        "error",
                        "-re",
                        "-f",
                        "lavfi",
                        "-i",
                        "testsrc2=size=1280x720:rate=30",
                        "-re",
                        "-i",
                        (dir / "sound.wav").string(),
                        "-t",
                        "3",
                        "-c:v",
                        "mpeg2video",
                        "-b:v",
                        "8M",
                        "-c:a",
                        "s302m",
                        "-strict",
                        "experimental",
                        "-f",
                        "mpegts",
                        "srt://127.0.0.1:" + port + "?mode=caller&linger=3"},
                       dir, "ffmpeg");
  ASSERT_EQ(ffmpeg.wait(60s), 0) << ffmpeg.err();
  ASSERT_EQ(receiver.process.wait(20s), 0) << receiver.process.err();
  EXPECT_NE(receiver.process.err().find("s302m sound (4 channels, 24-bit)"), std::string::npos)
      << receiver.process.err();

  const std::string sent = test::pcm_of(dir / "sound.wav", dir);
  ASSERT_EQ(sent.size(), 3u * 48'000 * 4 * 3);
  EXPECT_TRUE(test::same_bytes(test::pcm_of(dir / "rec.mkv", dir), sent));
  auto media = test::find_line(test::read_file(receiver.stats), "media");
  ASSERT_TRUE(media);
  EXPECT_EQ((*media)["audio_gaps"], 0);
  EXPECT_EQ((*media)["audio_samples_played"], 3 * 48'000);
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
