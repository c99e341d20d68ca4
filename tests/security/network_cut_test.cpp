// A network cut never ends the show (docs/RELIABILITY.md): the path between a
// real sender and a real receiver (a TCP relay) is cut for 4 s, every connection reset with RST
// and new ones refused, then restored. Neither end exits; both feeds resume within seconds of
// the path's return; both ends count the outage (how long, frames lost); the run ends with the
// verdict's exit code 3 (drops), not a failure.
#include <gtest/gtest.h>

#include <thread>

#include "tests/security/process_helpers.hpp"
#include "tests/support/tcp_relay.hpp"

namespace hdstream {
namespace {

using namespace std::chrono_literals;

constexpr auto kCut = 4s;

// The last "outage" line of `stream`, if any.
std::optional<nlohmann::json> outage_line(const std::string& text, int stream) {
  std::optional<nlohmann::json> found;
  for (const auto& line : test::json_lines(text)) {
    if (line.at("type") == "outage" && line.at("stream") == stream) found = line;
  }
  return found;
}

// The last "far_end" line of `stream`: what the receiver reported back to the sender.
std::optional<nlohmann::json> far_end_line(const std::string& text, int stream) {
  std::optional<nlohmann::json> found;
  for (const auto& line : test::json_lines(text)) {
    if (line.at("type") == "far_end" && line.at("stream") == stream) found = line;
  }
  return found;
}

class NetworkCut : public ::testing::TestWithParam<std::string> {};

TEST_P(NetworkCut, WithResetsNeitherEndExitsAndBothFeedsResume) {
  const std::string transport = GetParam();
  auto dir = test::scratch_dir("network-cut-" + transport);
  const int port = test::free_port();
  test::Process recv(
      {HDSTREAM_BINARY, "recv", "--listen", "127.0.0.1:" + std::to_string(port), "--streams", "2",
       "--transport", transport, "--stats", "json", "--interval", "200ms"},
      dir, "recv");
  ASSERT_TRUE(test::eventually([&] { return test::contains(recv.err(), "listening on"); }, 10s));
  test::TcpRelay path(static_cast<std::uint16_t>(port));
  // No --reconnect: the default keeps a live feed reconnecting for as long as it runs.
  test::Process send({HDSTREAM_BINARY, "send", "--dest", "127.0.0.1:" + std::to_string(path.port()),
                      "--streams", "2", "--rate", "20M", "--transport", transport, "--duration",
                      "14s", "--stats", "json", "--interval", "200ms"},
                     dir, "send");
  for (int stream : {0, 1}) {
    ASSERT_TRUE(test::frames_grow([&] { return recv.out(); }, stream, 15))
        << recv.err() << send.err();
  }

  path.cut();
  const auto cut_at = std::chrono::steady_clock::now();
  // Both ends notice (the receiver logs the lost sessions), and neither exits.
  EXPECT_TRUE(test::eventually(
      [&] { return test::contains(recv.err(), transport == "mtcp" ? "lost: " : "session lost"); },
      kCut))
      << recv.err();
  std::this_thread::sleep_until(cut_at + kCut);  // the cut's length: the scenario, not a wait
  EXPECT_EQ(recv.wait(1ms), std::nullopt) << recv.err();
  EXPECT_EQ(send.wait(1ms), std::nullopt) << send.err();
  path.restore();
  const auto restored_at = std::chrono::steady_clock::now();

  // Both feeds resume within a few seconds of the path's return.
  for (int stream : {0, 1}) {
    EXPECT_TRUE(test::frames_grow([&] { return recv.out(); }, stream, 15, 5s))
        << "stream " << stream << " did not resume\n"
        << recv.err() << send.err();
  }
  const double resumed_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - restored_at).count();
  EXPECT_LT(resumed_s, 5.0);

  // The sender's --duration ends the feeds with END; the receiver then ends by itself. Frames
  // were lost, so both verdicts fail with exit code 3 — not 1, the code of a failed run.
  EXPECT_EQ(send.wait(30s), 3) << send.err();
  EXPECT_EQ(recv.wait(20s), 3) << recv.err();
  const auto received = test::find_line(recv.out(), "summary");
  const auto sent = test::find_line(send.out(), "summary");
  ASSERT_TRUE(received && sent) << recv.out() << send.out();
  EXPECT_EQ((*received)["checksum_errors"], 0);
  EXPECT_GT((*received)["drops"].get<long>(), 0);

  const double cut_s = std::chrono::duration<double>(kCut).count();
  for (int stream : {0, 1}) {
    SCOPED_TRACE("stream " + std::to_string(stream));
    const auto recv_outage = outage_line(recv.out(), stream);
    const auto send_outage = outage_line(send.out(), stream);
    ASSERT_TRUE(recv_outage && send_outage) << recv.out() << send.out();
    for (const auto* outage : {&*recv_outage, &*send_outage}) {
      EXPECT_EQ((*outage)["outages"], 1) << outage->dump();
      EXPECT_FALSE((*outage)["in_progress"].get<bool>());
      // As long as the cut, plus the time to notice it and to reconnect after it.
      EXPECT_GE((*outage)["outage_s"].get<double>(), cut_s - 0.5) << outage->dump();
      EXPECT_LE((*outage)["outage_s"].get<double>(), cut_s + 5.0) << outage->dump();
    }
    // At 29.97 fps, a 4 s cut costs about 120 frames on each end.
    const long recv_lost = (*recv_outage)["frames_lost"].get<long>();
    const long send_lost = (*send_outage)["frames_lost"].get<long>();
    EXPECT_GE(recv_lost, static_cast<long>(cut_s * 29.97) - 15);
    EXPECT_LE(recv_lost, static_cast<long>((cut_s + 5.0) * 29.97));
    // The sender cannot see frames it wrote that died in the path; the receiver can. Both
    // count the frames of the cut: at most the frames in flight (socket buffers and the relay's
    // 64 KiB at 20 Mbps: a few 83 KB frames) apart.
    EXPECT_LE(send_lost, recv_lost);
    EXPECT_LE(recv_lost - send_lost, 8) << "sender " << send_lost << ", receiver " << recv_lost;
    // The sender's verdict reports the receiver's own count, exactly.
    const auto far_end = far_end_line(send.out(), stream);
    ASSERT_TRUE(far_end);
    EXPECT_EQ((*far_end)["drops"], test::stream_value(recv.out(), stream, "drops").value_or(-1));
  }
}

// mtcp: every sub-connection is reset at once; they rejoin the same session.
INSTANTIATE_TEST_SUITE_P(Faults, NetworkCut, ::testing::Values("tcp", "mtcp"),
                         [](const auto& param_info) { return param_info.param; });

}  // namespace
}  // namespace hdstream
