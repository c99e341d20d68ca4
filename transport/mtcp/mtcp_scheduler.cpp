#include "transport/mtcp/mtcp_scheduler.hpp"

#include <linux/sockios.h>
#include <sys/ioctl.h>

#include <algorithm>
#include <cmath>

namespace hdstream {

std::optional<std::size_t> pick_subconnection(std::span<const SubconnectionLoad> loads,
                                              std::uint64_t room_bytes) {
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < loads.size(); ++i) {
    const auto& load = loads[i];
    if (!load.usable || load.unsent_bytes() >= room_bytes) continue;
    if (!best || load.unsent_bytes() < loads[*best].unsent_bytes()) best = i;
  }
  return best;
}

std::size_t mtcp_window_frames(std::uint32_t latency_budget_ms, double frames_per_second) {
  const double budget_frames = latency_budget_ms / 1000.0 * frames_per_second;
  return std::max<std::size_t>(8, static_cast<std::size_t>(std::ceil(budget_frames)) + 4);
}

std::uint64_t kernel_unsent_bytes(int fd) {
  int unsent = 0;
  if (ioctl(fd, SIOCOUTQNSD, &unsent) != 0 || unsent < 0) return 0;
  return static_cast<std::uint64_t>(unsent);
}

}  // namespace hdstream
