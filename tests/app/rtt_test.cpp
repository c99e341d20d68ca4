// A receiver's RTT is the path's: hdstream recv and hdstream send on loopback, one 270 Mbps
// feed per transport; the receiver's interval lines must read loopback's round trip (well below
// 1 ms), not the time the sender took to acknowledge its FEEDBACK (docs/telemetry.md#rtt).
//   ctest --test-dir build -R LoopbackRtt
#include <gtest/gtest.h>

#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tests/support/process.hpp"
#include "tests/support/stats_lines.hpp"

namespace hdstream {
namespace {

using namespace std::chrono_literals;

// Lines from this far into the feed on: the first second holds the handshake's samples and,
// for SRT, its 100 ms initial estimate still converging.
constexpr double kSteadyFromS = 1.0;

class LoopbackRtt : public ::testing::TestWithParam<std::string> {};

TEST_P(LoopbackRtt, ReceiverReportsLoopbacksRoundTripBelowOneMillisecond) {
  const std::string transport = GetParam();
  auto dir = test::scratch_dir("rtt-" + transport);
  const std::string address = "127.0.0.1:" + std::to_string(test::free_port());
  test::Process recv(
      {HDSTREAM_BINARY, "recv", "--listen", address, "--transport", transport, "--stats", "json",
       "--stats-file", (dir / "r.jsonl").string(), "--interval", "250ms"},
      dir, "recv");
  test::Process send({HDSTREAM_BINARY, "send", "--dest", address, "--transport", transport,
                      "--rate", "270M", "--duration", "5s", "--stats", "json", "--stats-file",
                      (dir / "s.jsonl").string(), "--interval", "250ms"},
                     dir, "send");
  ASSERT_EQ(send.wait(60s), 0) << send.err();
  ASSERT_EQ(recv.wait(60s), 0) << recv.err();

  const auto received =
      test::interval_values(test::read_file(dir / "r.jsonl"), "rtt_ms", kSteadyFromS);
  ASSERT_GE(received.size(), 10u) << "too few interval lines; see " << dir;
  // Measured on this 2-core machine, shared with builds (10 runs each): medians 0.09-0.21 ms
  // (tcp), 0.20-0.45 (mtcp), 0.05-0.17 (srt); single lines reach 1.3 ms when the sender is
  // descheduled, hence the median. Before the fix tcp read 14-31 ms in most runs and mtcp
  // 11-15: the sender's delayed ACK, not the path.
  const double median_ms = test::median(received);
  std::printf("[ %s ] receiver rtt median %.3f ms over %zu lines: %s\n", transport.c_str(),
              median_ms, received.size(), fmt::format("{}", received).c_str());
  EXPECT_GT(median_ms, 0.0);
  EXPECT_LT(median_ms, 1.0) << fmt::format("{}", received);
}

INSTANTIATE_TEST_SUITE_P(Transports, LoopbackRtt, ::testing::Values("tcp", "mtcp", "srt"),
                         [](const auto& param_info) { return param_info.param; });

}  // namespace
}  // namespace hdstream
