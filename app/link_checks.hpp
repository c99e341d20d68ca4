// The pre-flight checks of `hdstream check`, each one line with a verdict and, when it fails,
// the exact fix.
//   std::vector<CheckItem> items = link_checks(plan, probe_endpoints(plan, 3s));
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "app/send_plan.hpp"

namespace hdstream {

struct CheckItem {
  std::string name;  // "reachable portland-1...:9000", "send buffer", ...
  bool ok = false;
  std::string detail;  // what was measured
  std::string fix;     // the exact command or setting that would make it pass (empty if ok)
};

struct EndpointProbe {
  Endpoint endpoint;
  bool reachable = false;
  std::string error;
  std::optional<double>
      rtt_ms;  // fastest connect of a few (TCP: SYN / SYN-ACK; SRT: its handshake)
  int handshake_round_trips = 1;  // round trips in that connect: 1 for TCP, 2 for SRT
  std::optional<int> path_mtu;    // the kernel's route MTU towards it
};

// Connects to every distinct feed endpoint a few times (SRT: each stream's UDP port, as a probe
// caller); never sends feed data.
std::vector<EndpointProbe> probe_endpoints(const SendPlan& plan, std::chrono::milliseconds timeout);

// Turns probes and local kernel settings into check items. The slowest probe's RTT sizes the
// buffers when it exceeds the planned RTT.
std::vector<CheckItem> link_checks(const SendPlan& plan, const std::vector<EndpointProbe>& probes);

}  // namespace hdstream
