// Turns what `hdstream monitor` polled from each host into panel inputs: every snapshot of a
// host is as fresh as that host's last successful poll, so a silent host greys out, and is
// labelled with the address it was polled at, so feeds on different hosts stay apart.
//   auto inputs = monitor_inputs(poller->latest(), PanelWindow::now_s(), wall_clock_ns());
#pragma once

#include <cstdint>
#include <vector>

#include "gui/panel_model.hpp"
#include "telemetry/stats_poller.hpp"

namespace hdstream {

inline std::vector<PanelInput> monitor_inputs(const std::vector<HostStatus>& hosts, double now_s,
                                              std::int64_t now_wall_ns) {
  std::vector<PanelInput> inputs;
  for (const auto& host : hosts) {
    if (host.last_ok_ns == 0) continue;
    const double age_s = static_cast<double>(now_wall_ns - host.last_ok_ns) / 1e9;
    for (const auto& snapshot : host.snapshots) {
      PanelInput input;
      input.source = snapshot;
      input.fresh_s = now_s - age_s;
      input.polled_from = host.address.to_string();
      inputs.push_back(std::move(input));
    }
  }
  return inputs;
}

}  // namespace hdstream
