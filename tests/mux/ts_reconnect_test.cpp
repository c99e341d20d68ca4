// An SRT caller that comes back to `recv --mux ts` (ffmpeg, twice on the same port): each of its
// sessions is its own recording, the second in the next numbered file beside the first, which
// is left whole (pipeline/recording_names.hpp; a TS session's clock and codecs are its own).
#include <gtest/gtest.h>

#include <csignal>

#include "tests/mux/ts_receiver.hpp"
#include "tests/support/process.hpp"
#include "tests/support/recorded_file.hpp"
#include "tests/support/stats_lines.hpp"

namespace hdstream {
namespace {

using namespace std::chrono_literals;

TEST(TsReconnect, ACallersNextSessionIsRecordedBesideItsFirst) {
  auto dir = test::scratch_dir("ts-reconnect");
  const std::string port = std::to_string(test::free_port());
  // Two streams, the second never called: the receiver outlives stream 0's first session.
  test::TsReceiver receiver(
      dir, port,
      {"--streams", "2", "--output", "file:" + (dir / "rec{stream}.mov").string(), "--audio-output",
       "null"});
  ASSERT_TRUE(receiver.listening) << receiver.process.err();
  test::Process& recv = receiver.process;
  for (long session = 1; session <= 2; ++session) {
    test::Process ffmpeg(
        {"/usr/bin/ffmpeg", "-nostdin", "-loglevel", "error", "-re", "-f", "lavfi", "-i",
         "testsrc2=size=1280x720:rate=30", "-t", "2", "-c:v", "mpeg2video", "-b:v", "8M", "-f",
         "mpegts", "srt://127.0.0.1:" + port + "?mode=caller&linger=3"},
        dir, "ffmpeg" + std::to_string(session));
    ASSERT_EQ(ffmpeg.wait(60s), 0) << ffmpeg.err();
    ASSERT_TRUE(
        test::eventually([&] { return test::occurrences(recv.err(), " ended (") == session; }, 10s))
        << recv.err();
  }
  recv.signal(SIGINT);
  recv.wait(10s);
  const std::string log = recv.err();
  EXPECT_EQ(test::occurrences(log, "recording to"), 2) << log;

  // Both sessions whole, each in its own file: 2 s at 30 fps, less the pictures before the
  // first key frame (mpeg2video's GOP: 12).
  const long first = test::probed_packets(dir / "rec0.mov", dir);
  const long second = test::probed_packets(dir / "rec0-2.mov", dir);
  EXPECT_GE(first, 60 - 12);
  EXPECT_GE(second, 60 - 12);
  EXPECT_FALSE(std::filesystem::exists(dir / "rec0-3.mov"));
  long recorded = -1;
  for (const auto& line : test::json_lines(test::read_file(receiver.stats))) {
    if (line["type"] == "media" && line["stream"] == 0) recorded = line["frames_recorded"];
  }
  EXPECT_EQ(recorded, first + second);
}

}  // namespace
}  // namespace hdstream
