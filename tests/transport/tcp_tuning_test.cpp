#include "transport/tcp_tuning.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>

#include "common/asio.hpp"

namespace hdstream {
namespace {

using namespace std::chrono_literals;

KernelLimits debian_defaults() {
  return KernelLimits{.core_max_bytes = 212'992,
                      .tcp_max_bytes = 4'194'304,
                      .tcp_default_bytes = 16'384,
                      .tcp_min_bytes = 4096};
}

TEST(BufferPlan, ShortPathsAreLeftToAutotuning) {
  auto plan = plan_buffer(270'000'000, 1ms, debian_defaults());
  EXPECT_EQ(plan.need_bytes, kMinBufferBytes);
  EXPECT_TRUE(plan.autotune);
  EXPECT_FALSE(plan.set_bytes);
}

TEST(BufferPlan, LongFatPipesNeedTwiceTheBandwidthDelayProduct) {
  // Seed 002: 97 ms RTT. 270 Mbps x 97 ms = 3.27 MB; twice that for headroom.
  auto plan = plan_buffer(270'000'000, 97ms, debian_defaults());
  EXPECT_EQ(plan.need_bytes, 6'547'500u);
  EXPECT_FALSE(plan.autotune);
  ASSERT_TRUE(plan.set_bytes);
  EXPECT_EQ(*plan.set_bytes, 6'547'500u);
}

// A receiver sizes a socket from its peer's HELLO: whatever rate and RTT it announces, the
// buffer is at most what the receiver gives it (its stream's share of --max-memory).
TEST(BufferPlan, WhatAPeerAnnouncesIsCappedByTheShareGiven) {
  constexpr std::uint64_t kShare = 256u << 20;
  const auto hostile = plan_buffer(100'000'000'000, 10s, debian_defaults(), kShare);
  EXPECT_EQ(hostile.need_bytes, kShare);
  ASSERT_TRUE(hostile.set_bytes);
  EXPECT_EQ(*hostile.set_bytes, kShare);
  // The largest a HELLO can say still gives a finite size, capped.
  const auto largest =
      plan_buffer(std::numeric_limits<std::uint64_t>::max(), 3600s, debian_defaults(), kShare);
  EXPECT_EQ(largest.need_bytes, kShare);
  // Below the share, the plan is what the path needs.
  EXPECT_EQ(plan_buffer(270'000'000, 97ms, debian_defaults(), kShare).need_bytes, 6'547'500u);
}

TEST(BufferPlan, SysctlFixIsExact) {
  EXPECT_EQ(sysctl_fix(BufferDirection::send, 6'547'500, debian_defaults()),
            "sysctl -w net.core.wmem_max=6547500 net.ipv4.tcp_wmem='4096 16384 6547500'");
  KernelLimits rx{.core_max_bytes = 212'992,
                  .tcp_max_bytes = 6'291'456,
                  .tcp_default_bytes = 131'072,
                  .tcp_min_bytes = 4096};
  EXPECT_EQ(sysctl_fix(BufferDirection::receive, 33'000'000, rx),
            "sysctl -w net.core.rmem_max=33000000 net.ipv4.tcp_rmem='4096 131072 33000000'");
}

TEST(KernelLimits, AreReadFromProc) {
  auto limits = read_kernel_limits(BufferDirection::send);
  EXPECT_GT(limits.core_max_bytes, 0u);
  EXPECT_GT(limits.tcp_max_bytes, 0u);
  EXPECT_LE(limits.tcp_min_bytes, limits.tcp_default_bytes);
}

// A real loopback connection for the socket-level calls.
struct LoopbackPair {
  asio::io_context io;
  tcp::acceptor acceptor{io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)};
  tcp::socket client{io};
  tcp::socket server{io};
  LoopbackPair() {
    client.connect(acceptor.local_endpoint());
    server = acceptor.accept();
  }
};

TEST(SocketTuning, AppliesCongestionControlAndReportsRefusals) {
  LoopbackPair pair;
  const int fd = pair.client.native_handle();
  EXPECT_TRUE(apply_sender_tuning(fd, {.congestion_control = "cubic",
                                       .notsent_lowat_bytes = 262'144,
                                       .max_pacing_rate_bps = 540'000'000})
                  .empty());
  EXPECT_EQ(current_congestion_control(fd), "cubic");
  auto refused = apply_sender_tuning(fd, {.congestion_control = "no-such-cc"});
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_NE(refused[0].find("congestion control 'no-such-cc' unavailable"), std::string::npos);
  EXPECT_EQ(current_congestion_control(fd), "cubic");
}

// The kernel doubles a buffer size it is given (half is bookkeeping) and getsockopt reports
// the doubled value; apply_buffer halves it back, so it returns the size that was granted.
// Root (CAP_NET_ADMIN, as CI runs) gets exactly what it asks for through SO_*BUFFORCE; anyone
// else is capped at net.core.{w,r}mem_max. Asking for 1 MB more than that cap tells them apart.
TEST(SocketTuning, ExplicitBufferIsGrantedExactlyToRootAndCappedForOthers) {
  LoopbackPair pair;
  for (const auto direction : {BufferDirection::send, BufferDirection::receive}) {
    const std::uint64_t cap = read_kernel_limits(direction).core_max_bytes;
    const std::uint64_t asked = std::min<std::uint64_t>(cap + 1'000'000, INT32_MAX / 2);
    const BufferPlan plan{.need_bytes = asked, .autotune = false, .set_bytes = asked};
    const std::uint64_t expected = ::geteuid() == 0 ? asked : std::min(asked, cap);
    EXPECT_EQ(apply_buffer(pair.client.native_handle(), direction, plan), expected)
        << (direction == BufferDirection::send ? "send" : "receive") << ": asked " << asked
        << ", cap " << cap << ", euid " << ::geteuid();
  }
  EXPECT_EQ(apply_buffer(pair.client.native_handle(), BufferDirection::send,
                         BufferPlan{.need_bytes = 1, .autotune = true, .set_bytes = std::nullopt}),
            0u);
}

TEST(TcpInfo, ReportsRttOfALiveConnection) {
  LoopbackPair pair;
  std::array<char, 1000> data{};
  asio::write(pair.client, asio::buffer(data));
  asio::read(pair.server, asio::buffer(data));
  auto info = read_tcp_info(pair.client.native_handle());
  ASSERT_TRUE(info);
  EXPECT_GT(info->rtt_ms, 0.0);
  EXPECT_LT(info->rtt_ms, 100.0);
  EXPECT_EQ(info->total_retransmits, 0u);
  EXPECT_FALSE(read_tcp_info(-1));
}

TEST(CongestionControl, AutoIsBbrOnLongPathsAndCubicOnShortOnes) {
  using std::chrono::milliseconds;
  EXPECT_EQ(choose_congestion_control("auto", milliseconds(97)), "bbr");
  EXPECT_EQ(choose_congestion_control("auto", kBbrFromRtt), "bbr");
  EXPECT_EQ(choose_congestion_control("auto", milliseconds(4)), "cubic");
  EXPECT_EQ(choose_congestion_control("auto", milliseconds(0)), "cubic");
  // An explicit choice is kept whatever the path.
  EXPECT_EQ(choose_congestion_control("bbr", milliseconds(1)), "bbr");
  EXPECT_EQ(choose_congestion_control("reno", milliseconds(200)), "reno");
}

}  // namespace
}  // namespace hdstream
