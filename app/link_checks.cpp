#include "app/link_checks.hpp"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <set>

#include <fmt/format.h>

#include "common/asio.hpp"
#include "common/units.hpp"
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

std::string available_congestion_controls() {
  std::ifstream in("/proc/sys/net/ipv4/tcp_available_congestion_control");
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

std::vector<EndpointProbe> probe_endpoints(const SendPlan& plan, std::chrono::milliseconds timeout) {
  std::vector<EndpointProbe> probes;
  std::set<std::string> seen;
  for (const auto& endpoint : plan.endpoints) {
    if (!seen.insert(endpoint.to_string()).second) continue;
    EndpointProbe probe{.endpoint = endpoint};
    for (int attempt = 0; attempt < 3; ++attempt) {
      auto ms = timed_connect(endpoint, timeout, probe.error, probe.path_mtu);
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
      item.detail = fmt::format("TCP connect {:.2f} ms", *probe.rtt_ms);
      worst_rtt_ms = std::max(worst_rtt_ms, *probe.rtt_ms);
    } else {
      item.detail = probe.error;
      item.fix = fmt::format("start the receiver there: hdstream recv --listen :{} --streams {}",
                             probe.endpoint.port, o.streams);
    }
    items.push_back(std::move(item));
    if (probe.path_mtu && plan.destination.mtu) {
      const bool mtu_ok = *probe.path_mtu >= static_cast<int>(*plan.destination.mtu);
      items.push_back(CheckItem{
          .name = "path MTU " + probe.endpoint.to_string(),
          .ok = mtu_ok,
          .detail = fmt::format("{} bytes (planned {})", *probe.path_mtu, *plan.destination.mtu),
          .fix = mtu_ok ? "" : fmt::format("raise the MTU on the path to {} (ip link set DEV mtu {})",
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
  const auto rtt = std::max(o.expected_rtt, std::chrono::nanoseconds(static_cast<std::int64_t>(
                                                worst_rtt_ms * 1e6)));
  for (auto direction : {BufferDirection::send, BufferDirection::receive}) {
    const auto limits = read_kernel_limits(direction);
    const auto plan_bytes = plan_buffer(o.rate_bps, rtt, limits);
    const bool root = ::geteuid() == 0;
    const bool ok = plan_bytes.autotune || limits.core_max_bytes >= plan_bytes.need_bytes ||
                    (direction == BufferDirection::send && root);
    const std::string name = direction == BufferDirection::send ? "send buffer (this host)"
                                                                : "receive buffer (far end)";
    items.push_back(CheckItem{
        .name = name,
        .ok = ok,
        .detail = fmt::format("need {} bytes for {} x {}; tcp max {}, core max {}{}",
                              plan_bytes.need_bytes, format_rate(static_cast<double>(o.rate_bps)),
                              format_duration(rtt), limits.tcp_max_bytes, limits.core_max_bytes,
                              plan_bytes.autotune ? " (autotuning reaches it)"
                              : root && direction == BufferDirection::send ? " (root: forced)"
                                                                           : ""),
        .fix = ok ? "" : sysctl_fix(direction, plan_bytes.need_bytes, limits)});
  }

  const std::string available = available_congestion_controls();
  const bool cc_ok = available.find(o.congestion_control) != std::string::npos;
  items.push_back(CheckItem{
      .name = "congestion control " + o.congestion_control,
      .ok = cc_ok,
      .detail = "available: " + std::string(available.substr(0, available.find('\n'))),
      .fix = cc_ok ? "" : fmt::format("modprobe tcp_{}", o.congestion_control)});
  return items;
}

}  // namespace hdstream
