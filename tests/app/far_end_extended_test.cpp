// FEEDBACK extension 1 between real processes: a sender's `--stats json` far_end lines carry
// the receiver's loss and chunk counters, on every transport.
#include <gtest/gtest.h>

#include <map>

#include "tests/support/process.hpp"
#include "tests/support/stats_lines.hpp"

namespace hdstream {
namespace {

using namespace std::chrono_literals;

class FarEndExtended : public ::testing::TestWithParam<std::string> {};

TEST_P(FarEndExtended, TheSendersFarEndLinesCarryTheReceiversLossCounters) {
  const std::string transport = GetParam();
  auto dir = test::scratch_dir("far-end-" + transport);
  const std::string address = "127.0.0.1:" + std::to_string(test::free_port());
  test::Process recv(
      {HDSTREAM_BINARY, "recv", "--listen", address, "--streams", "2", "--transport", transport,
       "--duration", "40s", "--stats", "json", "--stats-file", (dir / "r.jsonl").string()},
      dir, "recv");
  test::Process send({HDSTREAM_BINARY, "send", "--dest", address, "--streams", "2", "--transport",
                      transport, "--rate", "40M", "--duration", "2s", "--stats", "json",
                      "--stats-file", (dir / "s.jsonl").string()},
                     dir, "send");
  ASSERT_EQ(send.wait(60s), 0) << send.err();
  ASSERT_EQ(recv.wait(60s), 0) << recv.err();

  const auto sent = test::read_stats_file((dir / "s.jsonl").string());
  const auto received = test::read_stats_file((dir / "r.jsonl").string());
  const auto received_summary = test::last_line(received, "summary");
  ASSERT_TRUE(received_summary);
  // The final far_end line of each stream (written after the receiver's last report).
  std::map<int, nlohmann::json> last_far_end;
  int extended_lines = 0;
  for (const auto& line : sent) {
    if (line.value("type", "") != "far_end") continue;
    last_far_end[line["stream"].get<int>()] = line;
    if (line.value("extended", false)) ++extended_lines;
  }
  ASSERT_EQ(last_far_end.size(), 2u);
  EXPECT_GE(extended_lines, 2);
  std::int64_t far_frames = 0;
  for (const auto& [stream, line] : last_far_end) {
    EXPECT_EQ(line["extended"], true) << line;
    EXPECT_EQ(line["drops"], 0) << line;
    EXPECT_EQ(line["late_frames"], 0) << line;
    EXPECT_EQ(line["loss_events"], 0) << line;
    EXPECT_EQ(line["longest_loss_run"], 0) << line;
    EXPECT_TRUE(line.contains("duplicate_chunks")) << line;
    EXPECT_TRUE(line.contains("out_of_order_chunks")) << line;
    if (transport == "tcp") {
      EXPECT_EQ(line["out_of_order_chunks"], 0) << line;
    }
    far_frames += line["frames"].get<std::int64_t>();
  }
  EXPECT_EQ(far_frames, (*received_summary)["frames"].get<std::int64_t>());
}

INSTANTIATE_TEST_SUITE_P(Transports, FarEndExtended, ::testing::Values("tcp", "mtcp", "srt"),
                         [](const auto& param_info) { return param_info.param; });

}  // namespace
}  // namespace hdstream
