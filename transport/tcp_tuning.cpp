#include "transport/tcp_tuning.hpp"

#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

#include <fmt/format.h>

namespace hdstream {
namespace {

std::vector<std::uint64_t> read_numbers(const char* path) {
  std::ifstream in(path);
  std::vector<std::uint64_t> numbers;
  std::uint64_t value = 0;
  while (in >> value) numbers.push_back(value);
  return numbers;
}

}  // namespace

KernelLimits read_kernel_limits(BufferDirection direction) {
  const bool send = direction == BufferDirection::send;
  KernelLimits limits;
  auto core = read_numbers(send ? "/proc/sys/net/core/wmem_max" : "/proc/sys/net/core/rmem_max");
  auto tcp = read_numbers(send ? "/proc/sys/net/ipv4/tcp_wmem" : "/proc/sys/net/ipv4/tcp_rmem");
  if (!core.empty()) limits.core_max_bytes = core[0];
  if (tcp.size() == 3) {
    limits.tcp_min_bytes = tcp[0];
    limits.tcp_default_bytes = tcp[1];
    limits.tcp_max_bytes = tcp[2];
  }
  return limits;
}

BufferPlan plan_buffer(std::uint64_t rate_bps, std::chrono::nanoseconds rtt,
                       const KernelLimits& limits, std::uint64_t max_bytes) {
  const double bdp_bytes =
      static_cast<double>(rate_bps) / 8.0 * std::chrono::duration<double>(rtt).count();
  BufferPlan plan;
  plan.need_bytes = std::min(
      max_bytes,
      std::max(kMinBufferBytes, static_cast<std::uint64_t>(std::min(2 * bdp_bytes, 1e18))));
  plan.autotune = limits.tcp_max_bytes >= plan.need_bytes;
  if (!plan.autotune) plan.set_bytes = plan.need_bytes;
  return plan;
}

std::string choose_congestion_control(const std::string& requested,
                                      std::chrono::nanoseconds expected_rtt) {
  if (requested != "auto") return requested;
  return expected_rtt >= kBbrFromRtt ? "bbr" : "cubic";
}

std::string sysctl_fix(BufferDirection direction, std::uint64_t need_bytes,
                       const KernelLimits& limits) {
  const bool send = direction == BufferDirection::send;
  const std::uint64_t tcp_min = limits.tcp_min_bytes ? limits.tcp_min_bytes : 4096;
  const std::uint64_t tcp_default =
      limits.tcp_default_bytes ? limits.tcp_default_bytes : (send ? 16384 : 131072);
  return fmt::format("sysctl -w net.core.{}mem_max={} net.ipv4.tcp_{}mem='{} {} {}'",
                     send ? 'w' : 'r', need_bytes, send ? 'w' : 'r', tcp_min, tcp_default,
                     need_bytes);
}

std::uint64_t apply_buffer(int fd, BufferDirection direction, const BufferPlan& plan) {
  if (!plan.set_bytes) return 0;
  const bool send = direction == BufferDirection::send;
  // The kernel doubles what it is given (for bookkeeping) and reports the doubled value.
  int requested = static_cast<int>(std::min<std::uint64_t>(*plan.set_bytes, INT32_MAX / 2));
  if (setsockopt(fd, SOL_SOCKET, send ? SO_SNDBUFFORCE : SO_RCVBUFFORCE, &requested,
                 sizeof requested) != 0) {
    setsockopt(fd, SOL_SOCKET, send ? SO_SNDBUF : SO_RCVBUF, &requested, sizeof requested);
  }
  int effective = 0;
  socklen_t length = sizeof effective;
  getsockopt(fd, SOL_SOCKET, send ? SO_SNDBUF : SO_RCVBUF, &effective, &length);
  return static_cast<std::uint64_t>(effective) / 2;
}

std::vector<std::string> apply_sender_tuning(int fd, const SenderTuning& tuning) {
  std::vector<std::string> refused;
  if (!tuning.congestion_control.empty()) {
    const auto& cc = tuning.congestion_control;
    if (setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, cc.data(), static_cast<socklen_t>(cc.size())) !=
        0) {
      refused.push_back(fmt::format(
          "congestion control '{}' unavailable ({}); using '{}'. Fix: modprobe tcp_{} and check "
          "net.ipv4.tcp_available_congestion_control",
          cc, std::strerror(errno), current_congestion_control(fd), cc));
    }
  }
  if (tuning.notsent_lowat_bytes > 0) {
    int lowat = static_cast<int>(tuning.notsent_lowat_bytes);
    if (setsockopt(fd, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &lowat, sizeof lowat) != 0) {
      refused.push_back(fmt::format("TCP_NOTSENT_LOWAT refused: {}", std::strerror(errno)));
    }
  }
  if (tuning.max_pacing_rate_bps > 0) {
    std::uint64_t bytes_per_second = tuning.max_pacing_rate_bps / 8;
    if (setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &bytes_per_second,
                   sizeof bytes_per_second) != 0) {
      refused.push_back(fmt::format("SO_MAX_PACING_RATE refused: {}", std::strerror(errno)));
    }
  }
  return refused;
}

std::string current_congestion_control(int fd) {
  char name[32] = {};
  socklen_t length = sizeof name;
  if (getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, &length) != 0) return "unknown";
  return std::string(name, strnlen(name, sizeof name));
}

std::optional<TcpInfo> read_tcp_info(int fd) {
  tcp_info raw{};
  socklen_t length = sizeof raw;
  if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &raw, &length) != 0) return std::nullopt;
  TcpInfo info;
  info.rtt_ms = raw.tcpi_rtt / 1000.0;
  info.rtt_var_ms = raw.tcpi_rttvar / 1000.0;
  info.total_retransmits = raw.tcpi_total_retrans;
  info.data_segments_out = raw.tcpi_data_segs_out;
  info.delivery_rate_bps = raw.tcpi_delivery_rate * 8;
  info.snd_cwnd = raw.tcpi_snd_cwnd;
  return info;
}

std::chrono::milliseconds stall_timeout(std::chrono::nanoseconds expected_rtt) {
  return std::max(std::chrono::milliseconds(5000),
                  std::chrono::duration_cast<std::chrono::milliseconds>(20 * expected_rtt));
}

void set_stall_timeout(int fd, std::chrono::milliseconds timeout) {
  // Unacknowledged writes: the retransmissions give up after `timeout`.
  const auto ms = static_cast<unsigned int>(timeout.count());
  setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &ms, sizeof ms);
  // An end with nothing to write (a receiver between reports) hears nothing: keepalive probes
  // from the first silent second, and with TCP_USER_TIMEOUT set the kernel gives up once the
  // peer has been silent for `timeout` (tcp(7)).
  const int on = 1, idle_s = 1, interval_s = 1;
  const int probes = static_cast<int>(std::max<std::int64_t>(1, timeout.count() / 1000));
  setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle_s, sizeof idle_s);
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval_s, sizeof interval_s);
  setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &probes, sizeof probes);
}

void acknowledge_now(int fd) {
  // Not sticky: the kernel returns to delayed ACKs as soon as this end writes again, so it is
  // asked after every read.
  int on = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_QUICKACK, &on, sizeof on);
}

}  // namespace hdstream
