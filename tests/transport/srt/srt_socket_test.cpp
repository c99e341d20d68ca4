// SrtSocket over real libsrt on loopback: callers are never missed by accept(), messages keep
// their boundaries, and consecutive listener ports are taken or refused as a whole.
#include "transport/srt/srt_socket.hpp"

#include <gtest/gtest.h>

#include <array>
#include <system_error>
#include <vector>

#include "tests/transport/srt/srt_messages.hpp"
#include "transport/srt/srt_stream_id.hpp"

namespace hdstream {
namespace {

using namespace std::chrono_literals;

SrtPlan loopback_plan() {
  ensure_srt_started();
  SrtPlan plan;
  plan.rate_bps = 10'000'000;
  return plan;
}

std::span<const std::byte> bytes_of(const std::string& text) {
  return std::as_bytes(std::span(text));
}

// The buffer sizes `listener` gave the connection of a caller planned as `calling`.
SrtBufferSizes sizes_given_to(SrtSocket& listener, const SrtPlan& calling) {
  SrtSocket caller = SrtSocket::caller(calling);
  caller.connect(Endpoint{"127.0.0.1", listener.local_port()});
  std::optional<SrtSocket> accepted = listener.accept(5s);
  EXPECT_TRUE(accepted.has_value());
  return accepted ? accepted->buffer_sizes() : SrtBufferSizes{};
}

// libsrt raises a listener's read event only as a caller arrives: a caller queued while no
// accept() was waiting must still be accepted (it once hung a sender for its whole timeout).
TEST(SrtSocket, AcceptsACallerThatConnectedBeforeAcceptWasCalled) {
  const SrtPlan plan = loopback_plan();
  SrtSocket listener = SrtSocket::listener(plan, Endpoint{"127.0.0.1", 0});
  SrtSocket caller = SrtSocket::caller(plan);
  // srt_connect returns once the listener side has completed and queued the connection.
  caller.connect(Endpoint{"127.0.0.1", listener.local_port()});

  std::optional<SrtSocket> accepted = listener.accept(5s);
  ASSERT_TRUE(accepted.has_value());
  ASSERT_EQ(caller.send(bytes_of("hello")), SrtIo::ok);
  EXPECT_EQ(test::receive_message(*accepted), "hello");
}

TEST(SrtSocket, AcceptsEveryQueuedCallerThenTimesOut) {
  const SrtPlan plan = loopback_plan();
  SrtSocket listener = SrtSocket::listener(plan, Endpoint{"127.0.0.1", 0});
  SrtSocket first = SrtSocket::caller(plan);
  first.connect(Endpoint{"127.0.0.1", listener.local_port()});
  ASSERT_TRUE(listener.accept(5s).has_value());
  SrtSocket second = SrtSocket::caller(plan);
  second.connect(Endpoint{"127.0.0.1", listener.local_port()});
  ASSERT_TRUE(listener.accept(5s).has_value());
  // Nobody else is calling: accept() returns empty-handed instead of blocking.
  EXPECT_FALSE(listener.accept(50ms).has_value());
}

// Callers that arrive before the accepting thread has run (`check`'s reachability connect and
// its probe, a probe beside a waiting feed caller) are queued by libsrt up to the backlog, not
// refused: with a backlog of one the second was refused ("backlog exceeded", ~1 run in 4).
TEST(SrtSocket, CallersArrivingTogetherWaitForAcceptUpToTheBacklog) {
  const SrtPlan plan = loopback_plan();
  SrtSocket listener = SrtSocket::listener(plan, Endpoint{"127.0.0.1", 0});
  std::vector<SrtSocket> callers;
  for (int i = 0; i < kSrtListenBacklog; ++i) {
    callers.push_back(SrtSocket::caller(plan));
    ASSERT_NO_THROW(callers.back().connect(Endpoint{"127.0.0.1", listener.local_port()}))
        << "caller " << i << " of " << kSrtListenBacklog;
  }
  for (int i = 0; i < kSrtListenBacklog; ++i) {
    ASSERT_TRUE(listener.accept(5s).has_value()) << "caller " << i;
  }
  EXPECT_FALSE(listener.accept(50ms).has_value());
}

// An hdstream caller announces its rate, latency and RTT; the listener sizes that connection's
// receive buffers for them (latency: the larger of the two ends'), not for its own guess.
TEST(SrtSocket, TheListenerSizesEachCallersBuffersFromWhatItAnnounces) {
  SrtPlan listening = loopback_plan();
  listening.rate_bps = 1'000'000'000;
  listening.latency = 120ms;
  SrtSocket listener = SrtSocket::listener(listening, Endpoint{"127.0.0.1", 0});

  SrtPlan calling = loopback_plan();
  calling.rate_bps = 270'000'000;
  calling.latency = 1500ms;
  calling.rtt = 200ms;
  const SrtBufferSizes given = sizes_given_to(listener, calling);
  const SrtBufferSizes expected = plan_srt_buffers(calling);
  EXPECT_EQ(given.flow_window_packets, expected.flow_window_packets);
  // libsrt keeps RCVBUF in whole packets.
  EXPECT_NEAR(given.receive_buffer_bytes, expected.receive_buffer_bytes, kSrtMaxPayloadBytes);
  EXPECT_GT(expected.flow_window_packets, plan_srt_buffers(listening).flow_window_packets);

  // A caller asking for less latency than the listener plays at gets the listener's.
  SrtPlan brief = calling;
  brief.rate_bps = 1'000'000'000;  // so that each sizing below differs from the others
  brief.latency = 20ms;
  SrtPlan played = brief;
  played.latency = 120ms;
  EXPECT_EQ(sizes_given_to(listener, brief).flow_window_packets,
            plan_srt_buffers(played).flow_window_packets);
  EXPECT_NE(plan_srt_buffers(played).flow_window_packets,
            plan_srt_buffers(brief).flow_window_packets);

  // A caller announcing nothing (another tool) gets the listener's own sizing.
  SrtPlan anonymous = loopback_plan();
  anonymous.rate_bps = 0;
  EXPECT_EQ(sizes_given_to(listener, anonymous).flow_window_packets,
            plan_srt_buffers(listening).flow_window_packets);
}

// The plan may come from a remote caller: the largest one a listener trusts still gives sane,
// bounded buffers (at most 1 GB, the flow window covering the receive buffer).
TEST(SrtSocket, BufferPlansStayBoundedForTheLargestAnnouncedFeed) {
  SrtPlan huge;
  huge.rate_bps = kSrtStreamIdMaxRateBps;
  huge.latency = kSrtStreamIdMaxDuration;
  huge.rtt = kSrtStreamIdMaxDuration;
  const SrtBufferSizes sizes = plan_srt_buffers(huge);
  EXPECT_EQ(sizes.flow_window_packets, 686'814);  // ceil(1e9 / 1456)
  EXPECT_EQ(sizes.receive_buffer_bytes, 686'814 * (kSrtMaxPayloadBytes - 28));
  EXPECT_LE(std::int64_t{sizes.receive_buffer_bytes},
            std::int64_t{sizes.flow_window_packets} * (kSrtMaxPayloadBytes - 28));

  // A receiver's ceiling (its stream's share of --max-memory) holds against the same plan.
  huge.max_buffered_bytes = 64u << 20;
  const SrtBufferSizes capped = plan_srt_buffers(huge);
  EXPECT_EQ(capped.flow_window_packets, (int{64 << 20} + 1455) / 1456);
  EXPECT_LE(capped.receive_buffer_bytes, 64 << 20);

  SrtPlan tiny;  // and the smallest never goes below libsrt's defaults
  tiny.rate_bps = 1;
  tiny.latency = 0ms;
  tiny.rtt = 0ms;
  EXPECT_EQ(plan_srt_buffers(tiny).flow_window_packets, 25600);
  EXPECT_EQ(plan_srt_buffers(tiny).receive_buffer_bytes, 8 << 20);
}

// What a hostile caller can announce at most is honoured within those bounds, and the
// connection still works.
TEST(SrtSocket, ACallerAnnouncingTheLargestPlanGetsBoundedBuffers) {
  SrtSocket listener = SrtSocket::listener(loopback_plan(), Endpoint{"127.0.0.1", 0});
  SrtPlan greedy = loopback_plan();
  greedy.rate_bps = kSrtStreamIdMaxRateBps;
  greedy.latency = kSrtStreamIdMaxDuration;
  greedy.rtt = kSrtStreamIdMaxDuration;
  SrtSocket caller = SrtSocket::caller(greedy);
  caller.connect(Endpoint{"127.0.0.1", listener.local_port()});
  std::optional<SrtSocket> accepted = listener.accept(5s);
  ASSERT_TRUE(accepted.has_value());
  EXPECT_EQ(accepted->buffer_sizes().flow_window_packets,
            plan_srt_buffers(greedy).flow_window_packets);
  EXPECT_LE(accepted->buffer_sizes().receive_buffer_bytes, 1'000'000'000);
  ASSERT_EQ(caller.send(bytes_of("still works")), SrtIo::ok);
  EXPECT_EQ(test::receive_message(*accepted), "still works");

  // A receiver's listener caps them at its stream's share of --max-memory.
  SrtPlan sharing = loopback_plan();
  sharing.max_buffered_bytes = 64u << 20;
  SrtSocket capped_listener = SrtSocket::listener(sharing, Endpoint{"127.0.0.1", 0});
  SrtSocket second = SrtSocket::caller(greedy);
  second.connect(Endpoint{"127.0.0.1", capped_listener.local_port()});
  std::optional<SrtSocket> capped = capped_listener.accept(5s);
  ASSERT_TRUE(capped.has_value());
  EXPECT_LE(capped->buffer_sizes().receive_buffer_bytes, 64 << 20);
  EXPECT_EQ(capped->buffer_sizes().flow_window_packets, ((64 << 20) + 1455) / 1456);
}

TEST(SrtSocket, ListenersSurviveBeingMoved) {
  const SrtPlan plan = loopback_plan();
  std::vector<SrtSocket> listeners = listen_per_stream(plan, Endpoint{"127.0.0.1", 0}, 3);
  ASSERT_EQ(listeners.size(), 3u);
  const std::uint16_t base = listeners[0].local_port();
  for (std::size_t i = 0; i < listeners.size(); ++i) {
    EXPECT_EQ(listeners[i].local_port(), base + i);
  }
  // Moved out of the vector (as the receivers do into their threads), each still accepts.
  SrtSocket moved = std::move(listeners[2]);
  EXPECT_FALSE(listeners[2].is_open());
  SrtSocket caller = SrtSocket::caller(plan);
  caller.connect(Endpoint{"127.0.0.1", static_cast<std::uint16_t>(base + 2)});
  EXPECT_TRUE(moved.accept(5s).has_value());
}

TEST(SrtSocket, ATakenPortIsNamedInTheError) {
  const SrtPlan plan = loopback_plan();
  SrtSocket holder = SrtSocket::listener(plan, Endpoint{"127.0.0.1", 0});
  const std::uint16_t taken = holder.local_port();
  try {
    listen_per_stream(plan, Endpoint{"127.0.0.1", taken}, 2);
    FAIL() << "a second listener on UDP port " << taken << " was allowed";
  } catch (const std::system_error& error) {
    EXPECT_EQ(error.code(), std::errc::address_in_use);
    EXPECT_NE(std::string(error.what()).find(std::to_string(taken)), std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace hdstream
