// A recording that stops consuming: each feed records into a FIFO read by a `dd` process; one
// reader is SIGSTOPped for 6 s at full feed rate, so that feed's recorder blocks in write(2) the
// way a stalled disk or a hung downstream muxer would. Each output has its own queue, so the
// receiver must keep reading the network, keep decoding that feed (a slow recording never costs
// the display a frame), drop (and count) only that recording's frames, keep its memory bounded,
// leave the other feed alone, and resume recording when the reader is continued. The feeds are
// sdi270 (uncompressed v210, 224 Mbps): decoding it is an unpack, so both feeds keep up even on
// a loaded 2-core machine, which DNxHD decoding there did not always.
//   ctest --test-dir build -R StalledSink
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tests/support/process.hpp"

namespace hdstream {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr auto kStall = 6s;
constexpr double kFps = 29.97;
// Receiver RSS may grow by at most this much while a recording is stalled: the stalled
// recording's queue (60 frames of 0.93 MB, sdi270 v210: 53 MiB) and some room for the decode
// queues (8 frames each) and the reassembler's frames in flight, all pooled and bounded.
// Measured: 55 MiB; an unbounded queue would grow by 167 MiB during the stall.
constexpr long kMaxRssGrowthKiB = 80 * 1024;

// Every complete JSON line of a stats file still being written (a half-written one is skipped).
std::vector<json> read_lines(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::vector<json> lines;
  for (std::string line; std::getline(in, line);) {
    auto j = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_object()) lines.push_back(std::move(j));
  }
  return lines;
}

// The last line of `type` for `stream` (any stream if -1) among `lines`, from index `from` on.
std::optional<json> last(const std::vector<json>& lines, const std::string& type, int stream = -1,
                         std::size_t from = 0) {
  std::optional<json> found;
  for (std::size_t i = from; i < lines.size(); ++i) {
    if (lines[i].value("type", "") != type) continue;
    if (stream >= 0 && lines[i].value("stream", -1) != stream) continue;
    found = lines[i];
  }
  return found;
}

long media_value(const std::vector<json>& lines, int stream, const char* field) {
  const auto line = last(lines, "media", stream);
  return line ? line->value(field, 0L) : 0L;
}

long received_bytes(const std::vector<json>& lines, int stream) {
  const auto line = last(lines, "interval", stream);
  return line ? line->value("bytes", 0L) : 0L;
}

// VmRSS of a process in KiB (0 if it is gone).
long rss_kib(int pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return 0;
}

TEST(StalledSink,
     ABlockedRecordingDropsCountedFramesWithBoundedMemoryWhileDecodingAndTheNetworkKeepUp) {
  ::setenv("HDSTREAM_MEDIA_CACHE", HDSTREAM_MEDIA_CACHE, 1);
  const auto dir = test::scratch_dir("stalled-sink");
  for (int stream = 0; stream < 2; ++stream) {
    const auto fifo = dir / ("feed" + std::to_string(stream) + ".mkv");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << fifo;
  }
  // The readers: stand-ins for whatever consumes a recording (a muxer, a playout server).
  test::Process reader0(
      {"/bin/dd", "if=" + (dir / "feed0.mkv").string(), "of=/dev/null", "bs=1M", "status=none"},
      dir, "reader0");
  test::Process reader1(
      {"/bin/dd", "if=" + (dir / "feed1.mkv").string(), "of=/dev/null", "bs=1M", "status=none"},
      dir, "reader1");
  const std::string address = "127.0.0.1:" + std::to_string(test::free_port());
  const auto recv_stats = dir / "r.jsonl", send_stats = dir / "s.jsonl";
  // A recorded feed is decoded too (its pictures are verified and counted).
  test::Process recv({HDSTREAM_BINARY, "recv", "--listen", address, "--streams", "2", "--output",
                      "file:" + (dir / "feed{stream}.mkv").string(), "--duration", "60s", "--stats",
                      "json", "--stats-file", recv_stats.string(), "--interval", "250ms"},
                     dir, "recv");
  // --latency 500ms: the sender rides out being starved of CPU for a moment on a loaded 2-core
  // machine (seen: both feeds dropping 2 frames at once, long after the stall); a receiver that
  // stopped reading would back TCP up for the whole 6 s stall, far beyond it.
  test::Process send({HDSTREAM_BINARY, "send", "--dest", address, "--streams", "2", "--format",
                      "sdi270", "--duration", "16s", "--latency", "500ms", "--stats", "json",
                      "--stats-file", send_stats.string(), "--interval", "250ms"},
                     dir, "send");

  // Both feeds recording and decoding for a second.
  ASSERT_TRUE(test::eventually(
      [&] {
        const auto lines = read_lines(recv_stats);
        for (int stream = 0; stream < 2; ++stream) {
          if (media_value(lines, stream, "frames_decoded") < 30 ||
              media_value(lines, stream, "frames_recorded") < 30) {
            return false;
          }
        }
        return true;
      },
      30s))
      << recv.err();
  const long rss_before_kib = rss_kib(recv.pid());

  reader0.signal(SIGSTOP);
  // The pipe and then the recording's queue (60 frames, 2 s) fill; from then on it drops.
  ASSERT_TRUE(test::eventually(
      [&] { return media_value(read_lines(recv_stats), 0, "dropped_before_record") > 0; }, 10s))
      << "stream 0's recording never dropped with its reader stopped";
  const auto at_stall = read_lines(recv_stats);
  const auto stall_start = Clock::now();
  long rss_max_kib = 0;
  // The stall itself lasts kStall by definition; meanwhile sample the receiver's memory.
  while (Clock::now() - stall_start < kStall) {
    rss_max_kib = std::max(rss_max_kib, rss_kib(recv.pid()));
    std::this_thread::sleep_for(50ms);
  }
  const auto at_end = read_lines(recv_stats);
  const double stall_s = std::chrono::duration<double>(Clock::now() - stall_start).count();
  const auto grew = [&](int stream, const char* field) {
    return media_value(at_end, stream, field) - media_value(at_stall, stream, field);
  };
  const long frames_in_stall = static_cast<long>(0.8 * kFps * stall_s);

  // Stream 0's recorder is stuck in write(2): nothing recorded, everything arriving dropped
  // from its queue; its decoder did not notice.
  EXPECT_LE(grew(0, "frames_recorded"), 1);
  const long dropped_in_stall = grew(0, "dropped_before_record");
  EXPECT_GE(dropped_in_stall, frames_in_stall);
  EXPECT_GE(grew(0, "frames_decoded"), frames_in_stall);
  // The network kept reading stream 0 at the rate of the untouched stream 1.
  const double mbps0 =
      8e-6 * static_cast<double>(received_bytes(at_end, 0) - received_bytes(at_stall, 0)) / stall_s;
  const double mbps1 =
      8e-6 * static_cast<double>(received_bytes(at_end, 1) - received_bytes(at_stall, 1)) / stall_s;
  EXPECT_GT(mbps0, 150.0);
  EXPECT_GT(mbps0, 0.9 * mbps1);
  // The other feed did not notice: it recorded and decoded at frame rate and dropped nothing.
  EXPECT_GE(grew(1, "frames_recorded"), frames_in_stall);
  EXPECT_GE(grew(1, "frames_decoded"), frames_in_stall);
  EXPECT_EQ(media_value(at_end, 1, "dropped_before_record"), 0);
  for (int stream = 0; stream < 2; ++stream) {
    EXPECT_EQ(media_value(at_end, stream, "dropped_before_decode"), 0) << "stream " << stream;
  }
  // Memory bounded.
  EXPECT_GT(rss_before_kib, 0);
  EXPECT_LT(rss_max_kib - rss_before_kib, kMaxRssGrowthKiB);
  std::printf(
      "receiver RSS %ld MiB before the stall, at most %ld MiB during %.1f s of it; "
      "stream 0 %.0f Mbps received while stalled (stream 1 %.0f), %ld frames dropped from its "
      "recording, %ld decoded\n",
      rss_before_kib / 1024, rss_max_kib / 1024, stall_s, mbps0, mbps1, dropped_in_stall,
      grew(0, "frames_decoded"));

  // Continued: the recorder drains the pipe and stream 0 records again.
  reader0.signal(SIGCONT);
  const long recorded_at_resume = media_value(read_lines(recv_stats), 0, "frames_recorded");
  EXPECT_TRUE(test::eventually(
      [&] {
        return media_value(read_lines(recv_stats), 0, "frames_recorded") >= recorded_at_resume + 30;
      },
      10s))
      << "stream 0 did not resume recording after SIGCONT";

  // The link delivered every frame: the sender's end-to-end verdict passes. The receiver's fails
  // (3) on the frames its recording lost, and says so.
  ASSERT_EQ(send.wait(60s), 0) << send.err();
  EXPECT_EQ(recv.wait(60s), 3) << recv.err();
  EXPECT_EQ(reader0.wait(30s), 0);  // the recordings were closed properly
  EXPECT_EQ(reader1.wait(30s), 0);
  const auto sent = last(read_lines(send_stats), "summary");
  const auto received = read_lines(recv_stats);
  const auto summary = last(received, "summary");
  ASSERT_TRUE(sent && summary);
  EXPECT_EQ((*sent)["drops"], 0);
  EXPECT_EQ((*summary)["frames"], (*sent)["frames"]);  // every frame crossed the network
  EXPECT_EQ((*summary)["checksum_errors"], 0);
  EXPECT_EQ((*summary)["drops"], 0);
  const long lost = media_value(received, 0, "dropped_before_record");
  EXPECT_EQ(
      (*summary)["reasons"].dump(),
      json::array({fmt::format("recordings lost {} frames (the disk fell behind)", lost)}).dump());
  // Every frame is accounted for: decoded by both feeds, and recorded or counted lost.
  const long frames = (*summary)["frames"].get<long>();
  EXPECT_EQ(media_value(received, 0, "frames_decoded") + media_value(received, 1, "frames_decoded"),
            frames);
  EXPECT_EQ(media_value(received, 0, "frames_recorded") + lost +
                media_value(received, 1, "frames_recorded"),
            frames);
}

}  // namespace
}  // namespace hdstream
