// The policy every receiver admits sessions by: what a feed, a leg of a protected feed and a
// capacity probe may claim and reserve, what they count into, and that a session gives it all
// back when it goes (no processes, no sockets: the same object tcp, mtcp and srt hold).
#include "transport/admission.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "stats/registry.hpp"

namespace hdstream {
namespace {

struct Recorder : FrameConsumer {
  void session_started(std::uint16_t stream, const Hello&) override { started.push_back(stream); }
  void frame_received(std::uint16_t, FramePtr) override {}
  void session_ended(std::uint16_t stream, bool clean, std::uint64_t next_seq) override {
    ended.push_back({stream, clean, next_seq});
  }
  struct End {
    std::uint16_t stream;
    bool clean;
    std::uint64_t next_seq;
  };
  std::vector<std::uint16_t> started;
  std::vector<End> ended;
};

Hello feed_hello(std::uint64_t bit_rate_bps = 100'000'000) {
  Hello hello;
  hello.feed = FeedDescriptor{Codec::synthetic, 1920, 1080, 30, 1, bit_rate_bps};
  hello.chunk_bytes = 64 * 1024;
  hello.connections = 1;
  hello.latency_budget_ms = 120;
  return hello;
}

Hello probe_hello() {
  Hello hello = feed_hello();
  hello.flags |= kHelloProbe;
  return hello;
}

Hello leg_hello(std::uint8_t leg) {
  Hello hello = feed_hello();
  hello.legs = 2;
  hello.leg = leg;
  hello.feed_id = 7;
  return hello;
}

class AdmissionTest : public ::testing::Test {
 protected:
  static ReceiverOptions options() {
    ReceiverOptions options;
    options.streams = 2;
    options.max_memory_bytes = std::uint64_t{64} << 20;  // 32 MiB a stream
    return options;
  }
  using Result = std::variant<Admission::Session, Admission::Refusal>;
  Result admit(std::uint16_t stream, const Hello& hello) {
    return admission_.admit(stream, hello, reassembler_config(hello), /*readers=*/1, "peer:1");
  }
  static AckStatus status(const Result& result) {
    const auto* refusal = std::get_if<Admission::Refusal>(&result);
    return refusal ? refusal->status : AckStatus::accepted;
  }
  static std::string reason(const Result& result) {
    const auto* refusal = std::get_if<Admission::Refusal>(&result);
    return refusal ? refusal->reason : std::string();
  }

  StatsRegistry stats_{Role::recv, 2, "test"};
  Recorder consumer_;
  Admission admission_{options(), stats_, consumer_, 4, "test"};
};

TEST_F(AdmissionTest, AFeedHoldsItsStreamUntilItsSessionIsGone) {
  Result first = admit(0, feed_hello());
  ASSERT_EQ(status(first), AckStatus::accepted) << reason(first);
  auto& session = std::get<Admission::Session>(first);
  EXPECT_FALSE(session.probe());
  EXPECT_EQ(&session.counters(), &stats_.stream(0));  // a feed counts in its stream's counters
  EXPECT_EQ(status(admit(0, feed_hello())), AckStatus::stream_busy);
  EXPECT_EQ(status(admit(1, feed_hello())), AckStatus::accepted);  // the other stream is free

  session.started(feed_hello(), "over test");
  EXPECT_EQ(stats_.stream(0).state.load(), StreamState::running);
  EXPECT_EQ(stats_.stream(0).planned_bps.load(), 100'000'000u);
  EXPECT_EQ(stats_.stream(0).latency_budget_ms.load(), 120u);
  EXPECT_EQ(consumer_.started, std::vector<std::uint16_t>{0});
  session.ended(/*clean=*/true, 42);
  EXPECT_EQ(stats_.stream(0).state.load(), StreamState::finished);
  ASSERT_EQ(consumer_.ended.size(), 1u);
  EXPECT_TRUE(consumer_.ended[0].clean);
  EXPECT_EQ(consumer_.ended[0].next_seq, 42u);
  // Ended but not yet gone: still its stream's (its memory too) until it is released.
  EXPECT_EQ(status(admit(0, feed_hello())), AckStatus::stream_busy);
  session.release();
  EXPECT_EQ(&session.counters(), &stats_.stream(0));  // still readable once released
  EXPECT_EQ(status(admit(0, feed_hello())), AckStatus::accepted);
}

TEST_F(AdmissionTest, DestroyingASessionFreesItsStreamAndItsMemory) {
  const std::uint64_t free_before = admission_.memory_for(false).budget().unreserved_bytes();
  {
    Result held = admit(0, feed_hello());
    ASSERT_EQ(status(held), AckStatus::accepted);
    EXPECT_LT(admission_.memory_for(false).budget().unreserved_bytes(), free_before);
    Result moved = std::move(held);  // a moved-from session gives nothing back
    EXPECT_EQ(status(admit(0, feed_hello())), AckStatus::stream_busy);
  }
  EXPECT_EQ(admission_.memory_for(false).budget().unreserved_bytes(), free_before);
  EXPECT_EQ(status(admit(0, feed_hello())), AckStatus::accepted);
}

TEST_F(AdmissionTest, AStreamOutsideTheReceiversIsRefusedForFeedsAndProbesAlike) {
  for (const Hello& hello : {feed_hello(), probe_hello()}) {
    for (const std::uint16_t stream : {std::uint16_t{2}, std::uint16_t{65535}}) {
      const Result result = admit(stream, hello);
      EXPECT_EQ(status(result), AckStatus::bad_stream) << stream;
      EXPECT_EQ(reason(result), "this receiver serves streams 0..1");
    }
  }
}

TEST_F(AdmissionTest, AProbeRunsBesideTheFeedInCountersOfItsOwnWithinTheProbeLimit) {
  Result feed = admit(0, feed_hello());
  ASSERT_EQ(status(feed), AckStatus::accepted);
  Result probe = admit(0, probe_hello());
  ASSERT_EQ(status(probe), AckStatus::accepted) << reason(probe);
  auto& measured = std::get<Admission::Session>(probe);
  EXPECT_TRUE(measured.probe());
  ASSERT_NE(measured.capacity_probe(), nullptr);
  EXPECT_EQ(&measured.counters(), &measured.capacity_probe()->counters());
  measured.started(probe_hello(), "over test");
  measured.ended(/*clean=*/true, 10);
  EXPECT_TRUE(consumer_.started.empty());  // a probe never reaches the consumer
  EXPECT_TRUE(consumer_.ended.empty());
  EXPECT_EQ(stats_.stream(0).state.load(), StreamState::waiting);

  // One probe per stream served: a third is refused until one goes.
  Result second = admit(1, probe_hello());
  ASSERT_EQ(status(second), AckStatus::accepted);
  Result third = admit(1, probe_hello());
  EXPECT_EQ(status(third), AckStatus::stream_busy);
  EXPECT_EQ(reason(third), capacity_probes_busy(2));
  probe = Admission::Refusal{};
  EXPECT_EQ(status(admit(1, probe_hello())), AckStatus::accepted);
}

TEST_F(AdmissionTest, ProbesNeverTakeTheMemoryAFeedNeeds) {
  // Probes fill their own budget to the brim...
  Hello big_probe = probe_hello();
  big_probe.feed.bit_rate_bps = 700'000'000;  // 2.9 MB frames: 25 MiB of a 32 MiB share
  Result probes[] = {admit(0, big_probe), admit(1, big_probe)};
  ASSERT_EQ(status(probes[0]), AckStatus::accepted) << reason(probes[0]);
  ASSERT_EQ(status(probes[1]), AckStatus::accepted) << reason(probes[1]);
  // ...and a feed as large still finds its 25 MiB, where one budget shared would have 14 left.
  Hello big_feed = feed_hello(700'000'000);
  EXPECT_EQ(status(admit(0, big_feed)), AckStatus::accepted);
}

TEST_F(AdmissionTest, AFeedBeyondItsStreamsShareIsRefusedAsLoggedAndLeavesTheStreamFree) {
  const Result greedy = admit(0, feed_hello(4'000'000'000));  // 16.7 MB frames, 9 of them
  EXPECT_EQ(status(greedy), AckStatus::bad_request);
  EXPECT_NE(reason(greedy).find("a stream may hold 32.0 MiB"), std::string::npos) << reason(greedy);
  EXPECT_TRUE(std::get<Admission::Refusal>(greedy).logged);  // FrameMemory logged it
  EXPECT_EQ(status(admit(0, feed_hello())), AckStatus::accepted);
}

TEST_F(AdmissionTest, TheLegsOfAProtectedFeedShareItsStreamAndCountApart) {
  ReceiverOptions roomy = options();
  roomy.max_memory_bytes = std::uint64_t{256} << 20;  // a leg holds its frames and the merge's
  Admission admission(roomy, stats_, consumer_, 4, "test");
  auto admit = [&](const Hello& hello) {
    return admission.admit(0, hello, reassembler_config(hello), /*readers=*/1, "peer:1");
  };
  Result leg_a = admit(leg_hello(0));
  ASSERT_EQ(status(leg_a), AckStatus::accepted) << reason(leg_a);
  Result leg_b = admit(leg_hello(1));
  ASSERT_EQ(status(leg_b), AckStatus::accepted) << reason(leg_b);
  EXPECT_EQ(&std::get<Admission::Session>(leg_a).counters(), &stats_.leg(0, 0));
  EXPECT_EQ(&std::get<Admission::Session>(leg_b).counters(), &stats_.leg(0, 1));
  EXPECT_EQ(status(admit(leg_hello(0))), AckStatus::stream_busy);  // leg A is up
  EXPECT_EQ(status(admit(feed_hello())), AckStatus::stream_busy);  // the feed holds the stream
  leg_a = Admission::Refusal{};
  EXPECT_EQ(status(admit(leg_hello(0))), AckStatus::accepted);  // A may come back
}

}  // namespace
}  // namespace hdstream
