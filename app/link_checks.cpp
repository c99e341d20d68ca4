#include "app/link_checks.hpp"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <set>

#include <fmt/format.h>

#include "app/srt_settings.hpp"
#include "common/asio.hpp"
#include "common/units.hpp"
#include "transport/srt/srt_link.hpp"
#include "transport/srt/srt_socket.hpp"
#include "transport/tcp_tuning.hpp"

namespace hdstream {
namespace {

// One TCP connect with a deadline; returns the connect time, or the error text.
std::optional<double> timed_connect(const Endpoint& endpoint, std::chrono::milliseconds timeout,
                                    std::string& error, std::optional<int>& mtu) {
  asio::io_context io;
  tcp::socket socket(io);
  tcp::resolver resolver(io);
  error_code ec;
  auto results = resolver.resolve(endpoint.host, std::to_string(endpoint.port), ec);
  if (ec) {
    error = fmt::format("cannot resolve '{}': {}", endpoint.host, ec.message());
    return std::nullopt;
  }
  const auto start = std::chrono::steady_clock::now();
  bool done = false;
  asio::async_connect(socket, results, [&](error_code result, const tcp::endpoint&) {
    ec = result;
    done = true;
  });
  io.run_for(timeout);
  if (!done) {
    error = fmt::format("no answer within {}", format_duration(timeout));
    return std::nullopt;
  }
  if (ec) {
    error = ec.message();
    return std::nullopt;
  }
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  int value = 0;
  socklen_t length = sizeof value;
  if (getsockopt(socket.native_handle(), IPPROTO_IP, IP_MTU, &value, &length) == 0) mtu = value;
  return ms;
}

// One SRT connect (libsrt's caller handshake: two round trips) announcing a capacity probe, so
// that an hdstream listener hands it to a probe thread and never queues it behind the port's
// feed; returns the connect time, or the error text. No HELLO follows: the listener closes it.
std::optional<double> timed_srt_connect(const SendPlan& plan, const Endpoint& endpoint,
                                        std::string& error) {
  ensure_srt_started();
  SrtPlan srt =
      srt_plan(plan.rate_per_feed_bps(), srt_settings(plan.options), plan.options.expected_rtt);
  srt.probe = true;
  try {
    SrtSocket socket = SrtSocket::caller(srt);
    const auto start = std::chrono::steady_clock::now();
    socket.connect(endpoint);
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
  } catch (const SrtError& e) {
    error = e.what();
    return std::nullopt;
  }
}

std::string available_congestion_controls() {
  std::ifstream in("/proc/sys/net/ipv4/tcp_available_congestion_control");
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

std::vector<EndpointProbe> probe_endpoints(const SendPlan& plan,
                                           std::chrono::milliseconds timeout) {
  std::vector<EndpointProbe> probes;
  std::set<std::string> seen;
  const bool srt = plan.options.transport == TransportKind::srt;
  for (std::size_t i = 0; i < plan.endpoints.size(); ++i) {
    Endpoint endpoint = plan.endpoints[i];
    // SRT serves each stream on its own UDP port: listen port + stream id.
    if (srt) endpoint.port = static_cast<std::uint16_t>(endpoint.port + i);
    if (!seen.insert(endpoint.to_string()).second) continue;
    EndpointProbe probe{.endpoint = endpoint, .handshake_round_trips = srt ? 2 : 1};
    // TCP: the fastest of three connects. SRT: one (libsrt's listener queues one caller, and
    // refuses, with a log line, callers that find the queue full).
    for (int attempt = 0; attempt < (srt ? 1 : 3); ++attempt) {
      auto ms = srt ? timed_srt_connect(plan, endpoint, probe.error)
                    : timed_connect(endpoint, timeout, probe.error, probe.path_mtu);
      if (!ms) break;
      probe.reachable = true;
      probe.rtt_ms = std::min(probe.rtt_ms.value_or(*ms), *ms);
    }
    if (probe.reachable) probe.error.clear();
    probes.push_back(std::move(probe));
  }
  return probes;
}

std::vector<CheckItem> link_checks(const SendPlan& plan, const std::vector<EndpointProbe>& probes) {
  std::vector<CheckItem> items;
  const SendOptions& o = plan.options;
  double worst_rtt_ms = 0;
  for (const auto& probe : probes) {
    CheckItem item{.name = "reachable " + probe.endpoint.to_string(), .ok = probe.reachable};
    if (probe.reachable) {
      item.detail = fmt::format("{} connect {:.2f} ms",
                                o.transport == TransportKind::srt ? "SRT" : "TCP", *probe.rtt_ms);
      worst_rtt_ms = std::max(worst_rtt_ms, *probe.rtt_ms / probe.handshake_round_trips);
    } else {
      item.detail = probe.error;
      const std::uint16_t listen_port =
          o.transport == TransportKind::srt ? plan.endpoints.front().port : probe.endpoint.port;
      item.fix = fmt::format("start the receiver there: hdstream recv --listen :{} --streams {}{}",
                             listen_port, o.streams,
                             o.transport == TransportKind::tcp
                                 ? std::string()
                                 : fmt::format(" --transport {}", to_string(o.transport)));
    }
    items.push_back(std::move(item));
    if (probe.path_mtu && plan.destination.mtu) {
      const bool mtu_ok = *probe.path_mtu >= static_cast<int>(*plan.destination.mtu);
      items.push_back(CheckItem{
          .name = "path MTU " + probe.endpoint.to_string(),
          .ok = mtu_ok,
          .detail = fmt::format("{} bytes (planned {})", *probe.path_mtu, *plan.destination.mtu),
          .fix = mtu_ok ? ""
                        : fmt::format("raise the MTU on the path to {} (ip link set DEV mtu {})",
                                      *plan.destination.mtu, *plan.destination.mtu)});
    }
  }

  const double planned_rtt_ms = std::chrono::duration<double, std::milli>(o.expected_rtt).count();
  items.push_back(CheckItem{
      .name = "RTT",
      .ok = worst_rtt_ms <= std::max(2 * planned_rtt_ms, planned_rtt_ms + 1.0),
      .detail = fmt::format("measured {:.2f} ms, planned {}", worst_rtt_ms,
                            format_duration(o.expected_rtt)),
      .fix = fmt::format("plan for the measured RTT: --rtt {:.0f}ms", std::ceil(worst_rtt_ms))});
  if (items.back().ok) items.back().fix.clear();

  // Buffers for the larger of the planned and the measured RTT.
  const auto rtt = std::max(
      o.expected_rtt, std::chrono::nanoseconds(static_cast<std::int64_t>(worst_rtt_ms * 1e6)));
  for (auto direction : {BufferDirection::send, BufferDirection::receive}) {
    const auto limits = read_kernel_limits(direction);
    const auto plan_bytes = plan_buffer(plan.rate_per_feed_bps(), rtt, limits);
    const bool root = ::geteuid() == 0;
    const bool ok = plan_bytes.autotune || limits.core_max_bytes >= plan_bytes.need_bytes ||
                    (direction == BufferDirection::send && root);
    const std::string name =
        direction == BufferDirection::send ? "send buffer (this host)" : "receive buffer (far end)";
    items.push_back(CheckItem{
        .name = name,
        .ok = ok,
        .detail = fmt::format("need {} bytes for {} x {}; tcp max {}, core max {}{}",
                              plan_bytes.need_bytes,
                              format_rate(static_cast<double>(plan.rate_per_feed_bps())),
                              format_duration(rtt), limits.tcp_max_bytes, limits.core_max_bytes,
                              plan_bytes.autotune ? " (autotuning reaches it)"
                              : root && direction == BufferDirection::send ? " (root: forced)"
                                                                           : ""),
        .fix = ok ? "" : sysctl_fix(direction, plan_bytes.need_bytes, limits)});
  }

  const std::string available = available_congestion_controls();
  const bool cc_ok = available.find(o.congestion_control) != std::string::npos;
  items.push_back(
      CheckItem{.name = "congestion control " + o.congestion_control,
                .ok = cc_ok,
                .detail = "available: " + std::string(available.substr(0, available.find('\n'))),
                .fix = cc_ok ? "" : fmt::format("modprobe tcp_{}", o.congestion_control)});
  return items;
}

}  // namespace hdstream
