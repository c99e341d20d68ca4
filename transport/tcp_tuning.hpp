// Socket tuning for long fat pipes: buffers from the bandwidth-delay product (with the exact
// sysctl fix when the kernel caps them), congestion control, TCP_NOTSENT_LOWAT, pacing, and
// TCP_INFO read-back.
//   auto plan = plan_buffer(BufferDirection::send, 270'000'000, 97ms, read_kernel_limits());
//   if (!plan.fix.empty()) log->warn(plan.fix);
#pragma once

#include <chrono>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace hdstream {

enum class BufferDirection : std::uint8_t { send = 1, receive = 2 };

// What the kernel allows, from /proc/sys/net (rmem_max/wmem_max and tcp_rmem/tcp_wmem max).
struct KernelLimits {
  std::uint64_t core_max_bytes = 0;     // net.core.{w,r}mem_max
  std::uint64_t tcp_max_bytes = 0;      // third field of net.ipv4.tcp_{w,r}mem
  std::uint64_t tcp_default_bytes = 0;  // second field
  std::uint64_t tcp_min_bytes = 0;      // first field
};
KernelLimits read_kernel_limits(BufferDirection direction);

struct BufferPlan {
  std::uint64_t need_bytes = 0;  // 2 x rate x RTT, at least kMinBufferBytes
  bool autotune = false;         // the kernel's autotuning can reach need_bytes: set nothing
  // Set explicitly when autotuning cannot reach it; empty when autotuning suffices.
  std::optional<std::uint64_t> set_bytes;
};
inline constexpr std::uint64_t kMinBufferBytes = 4u << 20;

// `max_bytes`: the most the buffer may be, whatever the rate and RTT (a receiver sizing a
// socket from what its peer's HELLO announces gives the stream's share of --max-memory).
BufferPlan plan_buffer(std::uint64_t rate_bps, std::chrono::nanoseconds rtt,
                       const KernelLimits& limits,
                       std::uint64_t max_bytes = std::numeric_limits<std::uint64_t>::max());

// The exact commands that would let a socket buffer reach `need_bytes`.
std::string sysctl_fix(BufferDirection direction, std::uint64_t need_bytes,
                       const KernelLimits& limits);

// Applies plan to a socket: SO_SNDBUF/SO_RCVBUF (the FORCE variant when permitted), reads the
// effective size back and returns it (0 when left to autotuning).
std::uint64_t apply_buffer(int fd, BufferDirection direction, const BufferPlan& plan);

struct SenderTuning {
  std::string congestion_control;         // empty: the system default
  std::uint32_t notsent_lowat_bytes = 0;  // 0: leave unset
  std::uint64_t max_pacing_rate_bps = 0;  // 0: no cap (SO_MAX_PACING_RATE)
};
// Returns one line per setting the kernel refused (e.g. an unavailable congestion control).
std::vector<std::string> apply_sender_tuning(int fd, const SenderTuning& tuning);

std::string current_congestion_control(int fd);

// `--cc auto`: bbr on paths with an expected RTT of kBbrFromRtt or more, cubic below. On long
// lossy paths BBR keeps a 270 Mbps feed alive where loss-based control collapses. On short
// ones its bandwidth model, fed while the receiver is slow to read, can pace the next frames
// out slowly: at 5 DNxHD feeds on loopback, frame ready -> decoded p99 was 5.6-10.8 ms with bbr
// against 4.9-5.4 ms with cubic, which sends a frame as one burst (and 40-80 ms stalls with
// bbr when the receiver still ran two I/O threads). A LAN with shallow switch buffers may
// prefer bbr's pacing: say `--cc bbr`. Any name other than auto is returned as given.
inline constexpr std::chrono::milliseconds kBbrFromRtt{10};
std::string choose_congestion_control(const std::string& requested,
                                      std::chrono::nanoseconds expected_rtt);

struct TcpInfo {
  // The kernel's smoothed RTT (srtt): sampled from the ACKs of what this end wrote.
  double rtt_ms = 0;
  double rtt_var_ms = 0;
  std::uint64_t total_retransmits = 0;
  std::uint64_t data_segments_out = 0;  // segments with data sent, retransmissions included
  std::uint64_t delivery_rate_bps = 0;
  std::uint32_t snd_cwnd = 0;
};
std::optional<TcpInfo> read_tcp_info(int fd);

// Sends the ACK for what has been read now, instead of delaying it (TCP_QUICKACK). The end that
// mostly sends calls it after reading each message from the end that mostly receives: the
// receiver's RTT samples come only from the ACKs of its own rare writes, and a delayed ACK (or
// one that waits for the next frame burst to ride on) makes its RTT the frame interval
// instead of the path's (docs/telemetry.md#rtt). Acts only once everything received is read.
void acknowledge_now(int fd);

// How long what this end wrote may stay unacknowledged before the kernel gives the connection
// up (TCP_USER_TIMEOUT, RFC 5482), and how long an end with nothing to write may hear nothing
// (keepalive probes from the first silent second): 5 s like SRT's peer-idle timeout, or 20 RTTs
// on a longer path. A path that goes silent (a cut fibre sends no resets) otherwise leaves TCP
// retransmitting with exponential backoff: after a 60 s silent cut the next retransmission came
// ~50 s after the path's return, the picture frozen and neither end aware of an outage, and a
// receiver that was only reading held a dead session (refusing the sender's next one) forever.
// With it both ends see the session break and count an outage, and the sender's reconnection
// attempts (each bounded by kConnectAttemptTimeout) resume the feed about a second after the
// path's return. A 2 s flap still rides through: the retransmission that recovers it comes at
// ~3 s.
std::chrono::milliseconds stall_timeout(std::chrono::nanoseconds expected_rtt);
void set_stall_timeout(int fd, std::chrono::milliseconds timeout);

}  // namespace hdstream
