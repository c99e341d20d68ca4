// A receiver that stops reading (SIGSTOP: a hung host, a scheduler stall) fills the sender's
// queue, a latency budget's worth of frames; what the queue cannot take is dropped, counted and
// said in one line, not a line per frame; the feed carries on when the receiver does.
#include <gtest/gtest.h>

#include <csignal>
#include <thread>

#include <fmt/format.h>

#include "tests/support/eventually.hpp"
#include "tests/support/process.hpp"
#include "tests/support/stats_lines.hpp"

namespace hdstream {
namespace {

using namespace std::chrono_literals;

TEST(SendQueue, FramesAReceiverCannotTakeAreDroppedCountedAndSaidOnce) {
  auto dir = test::scratch_dir("send-queue");
  const std::string address = "127.0.0.1:" + std::to_string(test::free_port());
  test::Process recv({HDSTREAM_BINARY, "recv", "--listen", address, "--streams", "1", "--stats",
                      "json", "--duration", "30s"},
                     dir, "recv");
  ASSERT_TRUE(test::eventually([&] {
    return recv.err().find("listening on") != std::string::npos;
  })) << recv.err();
  test::Process send({HDSTREAM_BINARY, "send", "--dest", address, "--rate", "100M", "--duration",
                      "6s", "--stats", "json"},
                     dir, "send");
  ASSERT_TRUE(test::eventually([&] { return recv.err().find("accepted") != std::string::npos; }))
      << recv.err();
  // The stall itself: 2 s of a 100 Mbps feed is 25 MB, beyond the socket buffers on both sides
  // and the sender's 120 ms of frames.
  recv.signal(SIGSTOP);
  std::this_thread::sleep_for(2s);
  recv.signal(SIGCONT);

  ASSERT_EQ(send.wait(30s), 3) << send.err();  // ran, but frames were lost: the verdict fails
  const auto sent = test::find_line(send.out(), "summary");
  ASSERT_TRUE(sent) << send.out();
  const int drops = (*sent)["drops"].get<int>();
  // The stall's 60 frames less what waited: the queue's 4 and what the kernel's buffers took, at
  // most 10 MiB with Debian's defaults (tcp_rmem 6 MiB, tcp_wmem 4 MiB), 25 frames of 417 KB;
  // plus at most 5 for the signals' own delays. Measured: 45.
  EXPECT_GE(drops, 60 - 4 - 25) << send.err();
  EXPECT_LE(drops, 60 + 5) << send.err();
  EXPECT_EQ((*sent)["frames"].get<int>() + drops, 180);  // 6 s at 29.97 fps: every frame accounted
  // One line names what happened; the rest of the burst is held back, not printed.
  const std::string log = send.err();
  EXPECT_EQ(test::occurrences(log, "dropped: the send queue (120 ms of frames) is full"), 1) << log;
  EXPECT_TRUE(log.find(fmt::format("stream 0: … and {} more frames dropped at the full send queue",
                                   drops - 1)) != std::string::npos)
      << log;
  // The feed carried on: the receiver has every frame the sender sent.
  recv.signal(SIGTERM);
  EXPECT_TRUE(recv.wait(20s));
  const auto received = test::find_line(recv.out(), "summary");
  ASSERT_TRUE(received) << recv.out();
  EXPECT_EQ((*received)["frames"], (*sent)["frames"]);
  EXPECT_EQ((*received)["checksum_errors"], 0);
}

}  // namespace
}  // namespace hdstream
