// Faults with real processes and sockets (docs/RELIABILITY.md, "Faults and what hdstream does"):
// - a receiver killed with SIGKILL and restarted (tcp, mtcp, srt): the sender retries with backoff
//   and resumes, the new receiver counts only what was really lost; the sender's other feed (to
//   another receiver) never stops;
// - a sender killed and restarted: the receiver accepts the new session on the same stream id
//   while its other feed continues;
// - SIGTERM: clean stop, summary printed, exit 130, on both ends.
#include <gtest/gtest.h>

#include <thread>

#include "tests/security/process_helpers.hpp"

namespace hdstream {
namespace {

using namespace std::chrono_literals;

class ReceiverKilled : public ::testing::TestWithParam<std::string> {};

TEST_P(ReceiverKilled, AndRestartedTheSenderResumesAndTheOtherFeedNeverStops) {
  const std::string transport = GetParam();
  auto dir = test::scratch_dir("fault-recv-kill-" + transport);
  const int port = test::free_port();
  // Feed 0 goes to 127.0.0.1, feed 1 to 127.0.0.2: two receivers, one sender process.
  const auto config = dir / "pair.toml";
  std::ofstream(config) << "[destinations.pair]\nhosts = [\"127.0.0.1\", \"127.0.0.2\"]\nport = "
                        << port << "\n";
  auto start_recv = [&](const std::string& host, const std::string& name) {
    return std::make_unique<test::Process>(
        std::vector<std::string>{HDSTREAM_BINARY, "recv", "--listen",
                                 host + ":" + std::to_string(port), "--streams", "2", "--transport",
                                 transport, "--stats", "json", "--interval", "200ms"},
        dir, name);
  };
  auto first = start_recv("127.0.0.1", "recv-a");
  auto other = start_recv("127.0.0.2", "recv-b");
  test::Process send({HDSTREAM_BINARY, "send", "--config", config.string(), "--dest", "pair",
                      "--streams", "2", "--rate", "20M", "--transport", transport,
                      "--connect-timeout", "30s", "--stats", "json", "--interval", "200ms"},
                     dir, "send");
  ASSERT_TRUE(test::frames_grow([&] { return first->out(); }, 0, 10)) << first->err() << send.err();
  ASSERT_TRUE(test::frames_grow([&] { return other->out(); }, 1, 10)) << other->err();

  first->signal(SIGKILL);
  EXPECT_EQ(first->wait(10s), 128 + SIGKILL);
  // While feed 0 has no receiver, feed 1 keeps going, on both ends.
  EXPECT_TRUE(test::frames_grow([&] { return other->out(); }, 1, 20)) << other->err();
  EXPECT_TRUE(test::frames_grow([&] { return send.out(); }, 1, 20)) << send.err();
  EXPECT_EQ(send.wait(1ms), std::nullopt) << send.err();  // the sender is still running

  auto restarted = start_recv("127.0.0.1", "recv-a2");
  EXPECT_TRUE(test::frames_grow([&] { return restarted->out(); }, 0, 10, 30s))
      << restarted->err() << send.err();
  // tcp and srt open a new session at the next frame; mtcp re-establishes its sub-connections and
  // the new receiver starts at the first frame its predecessor had not delivered.
  EXPECT_TRUE(
      test::contains(send.err(), transport == "mtcp" ? "re-established" : "resumed at frame"))
      << send.err();
  EXPECT_TRUE(test::frames_grow([&] { return other->out(); }, 1, 5)) << other->err();

  send.signal(SIGTERM);
  EXPECT_EQ(send.wait(20s), 130) << send.err();
  auto sent = test::find_line(send.out(), "summary");
  ASSERT_TRUE(sent);
  EXPECT_GT((*sent)["drops"].get<long>(), 0);  // frames due while feed 0 was down
  // The new receiver counts what the outage cost (the sender's drops, and the few frames in
  // flight when the old one died), not the frames its predecessor had already delivered.
  const auto sender_drops = test::stream_value(send.out(), 0, "drops");
  const auto restarted_drops = test::stream_value(restarted->out(), 0, "drops");
  ASSERT_TRUE(sender_drops && restarted_drops) << send.out() << restarted->out();
  EXPECT_LE(*restarted_drops, *sender_drops + 8) << restarted->err();
  for (auto* recv : {restarted.get(), other.get()}) {
    recv->signal(SIGTERM);
    EXPECT_EQ(recv->wait(20s), 130) << recv->err();
    EXPECT_TRUE(test::find_line(recv->out(), "summary"));
    EXPECT_EQ((*test::find_line(recv->out(), "summary"))["checksum_errors"], 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Faults, ReceiverKilled, ::testing::Values("tcp", "mtcp", "srt"),
                         [](const auto& param_info) { return param_info.param; });

TEST(Faults, SenderKilledAndRestartedTheReceiverAcceptsTheNewSessionOthersContinue) {
  auto dir = test::scratch_dir("fault-send-kill");
  const std::string address = "127.0.0.1:" + std::to_string(test::free_port());
  test::Process recv({HDSTREAM_BINARY, "recv", "--listen", address, "--streams", "2", "--stats",
                      "json", "--interval", "200ms"},
                     dir, "recv");
  // Stream 0 from `victim`; stream 1 from `steady` (its own stream 0 is refused as busy).
  auto victim = std::make_unique<test::Process>(
      std::vector<std::string>{HDSTREAM_BINARY, "send", "--dest", address, "--rate", "20M"}, dir,
      "victim");
  ASSERT_TRUE(test::frames_grow([&] { return recv.out(); }, 0, 5)) << recv.err();
  test::Process steady(
      {HDSTREAM_BINARY, "send", "--dest", address, "--streams", "2", "--rate", "20M"}, dir,
      "steady");
  ASSERT_TRUE(test::frames_grow([&] { return recv.out(); }, 1, 10)) << recv.err() << steady.err();

  victim->signal(SIGKILL);
  EXPECT_EQ(victim->wait(10s), 128 + SIGKILL);
  EXPECT_TRUE(test::frames_grow([&] { return recv.out(); }, 1, 20)) << recv.err();
  victim = std::make_unique<test::Process>(
      std::vector<std::string>{HDSTREAM_BINARY, "send", "--dest", address, "--rate", "20M",
                               "--connect-timeout", "20s"},
      dir, "victim2");
  EXPECT_TRUE(test::frames_grow([&] { return recv.out(); }, 0, 10)) << recv.err() << victim->err();
  EXPECT_TRUE(test::frames_grow([&] { return recv.out(); }, 1, 5)) << recv.err();
  const std::string log = recv.err();
  std::size_t accepted = 0;
  for (auto at = log.find("stream 0: feed from"); at != std::string::npos;
       at = log.find("stream 0: feed from", at + 1)) {
    ++accepted;
  }
  EXPECT_GE(accepted, 2u) << log;

  victim->signal(SIGTERM);
  steady.signal(SIGTERM);
  EXPECT_EQ(victim->wait(20s), 130) << victim->err();
  EXPECT_EQ(steady.wait(20s), 130) << steady.err();  // (its stream 0 was refused as busy)
  // Both streams ended with END: the receiver ends by itself, with the verdict's exit code. A
  // frame the victim was halfway through when killed is a drop (its restarted successor counts
  // from frame 0 again, so no gap is counted), and stream 0's time without a sender costs rate;
  // nothing else may fail the verdict: no stream is left failed or cut off, stream 1 lost nothing.
  const auto recv_code = recv.wait(20s);
  auto summary = test::find_line(recv.out(), "summary");
  ASSERT_TRUE(summary) << recv.out();
  EXPECT_EQ(recv_code, (*summary)["verdict"] == "pass" ? 0 : 3) << summary->dump();
  EXPECT_LE((*summary)["drops"].get<long>(), 1) << recv.err();  // one frame at most was partial
  for (const auto& reason : (*summary)["reasons"]) {
    const std::string text = reason.get<std::string>();
    EXPECT_TRUE(text.starts_with("aggregate ") || text == "1 frames dropped") << text;
  }
  EXPECT_EQ(test::stream_value(recv.out(), 1, "drops"), 0) << recv.out();
  EXPECT_EQ((*summary)["checksum_errors"], 0);
}

TEST(Faults, SigtermStopsBothEndsCleanlyWithASummaryAndExit130) {
  auto dir = test::scratch_dir("fault-sigterm");
  const std::string address = "127.0.0.1:" + std::to_string(test::free_port());
  // Sender first: its feeds end with END, the receiver has every frame and ends by itself.
  test::Process recv({HDSTREAM_BINARY, "recv", "--listen", address, "--streams", "2", "--stats",
                      "json", "--interval", "200ms"},
                     dir, "recv");
  test::Process send({HDSTREAM_BINARY, "send", "--dest", address, "--streams", "2", "--rate", "20M",
                      "--stats", "json", "--interval", "200ms"},
                     dir, "send");
  ASSERT_TRUE(test::frames_grow([&] { return recv.out(); }, 1, 10)) << recv.err();
  send.signal(SIGTERM);
  EXPECT_EQ(send.wait(20s), 130) << send.err();
  EXPECT_EQ(recv.wait(20s), 0) << recv.err();
  auto sent = test::find_line(send.out(), "summary");
  auto received = test::find_line(recv.out(), "summary");
  ASSERT_TRUE(sent && received);
  EXPECT_EQ((*received)["frames"], (*sent)["frames"]);
  EXPECT_EQ((*received)["drops"], 0);
  EXPECT_EQ((*sent)["drops"], 0);

  // Receiver first: it stops with a summary; the sender, retrying to resume, stops promptly
  // on its own SIGTERM.
  test::Process recv2({HDSTREAM_BINARY, "recv", "--listen", address, "--streams", "2", "--stats",
                       "json", "--interval", "200ms"},
                      dir, "recv2");
  test::Process send2({HDSTREAM_BINARY, "send", "--dest", address, "--streams", "2", "--rate",
                       "20M", "--connect-timeout", "60s", "--stats", "json"},
                      dir, "send2");
  ASSERT_TRUE(test::frames_grow([&] { return recv2.out(); }, 1, 10)) << recv2.err();
  recv2.signal(SIGTERM);
  EXPECT_EQ(recv2.wait(20s), 130) << recv2.err();
  EXPECT_TRUE(test::find_line(recv2.out(), "summary"));
  std::this_thread::sleep_for(1s);  // the sender notices and starts retrying
  const auto stop_start = std::chrono::steady_clock::now();
  send2.signal(SIGTERM);
  EXPECT_EQ(send2.wait(20s), 130) << send2.err();
  EXPECT_LT(std::chrono::steady_clock::now() - stop_start, 5s);
  EXPECT_TRUE(test::find_line(send2.out(), "summary"));
}

}  // namespace
}  // namespace hdstream
