#include "app/demo_size.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace hdstream {

DemoSize size_demo(std::size_t wanted, double decode_seconds_per_frame, double frames_per_second,
                   DemoMachine machine, DemoScreens screens) {
  DemoSize size;
  size.wanted = wanted;
  size.decode_ms = decode_seconds_per_frame * 1e3;
  size.cores = std::max(machine.cores, 1u);
  size.cores_left = std::clamp(machine.cores_left, 0.0, static_cast<double>(size.cores));
  size.screens = screens;
  const double factor = screens == DemoScreens::wayland ? kFeedCostOnWayland
                        : screens == DemoScreens::x11   ? kFeedCostOnX
                                                        : kFeedCostHeadless;
  size.cores_per_feed = decode_seconds_per_frame * frames_per_second * factor;
  size.feeds = wanted;
  if (!(size.cores_per_feed > 0)) return size;  // nothing measured: as asked
  const double fit = std::floor(kDemoBudgetShare * size.cores_left / size.cores_per_feed);
  if (fit < static_cast<double>(wanted)) {
    size.feeds = std::max<std::size_t>(1, static_cast<std::size_t>(std::max(fit, 0.0)));
  }
  return size;
}

std::string describe(const DemoSize& size) {
  // Other work counts when it takes a tenth of a core or more; below that it is noise.
  const bool busy = size.cores_left < static_cast<double>(size.cores) - 0.1;
  const std::string cost = fmt::format(
      "its bars clip decodes in {:.1f} ms of CPU a frame here, so {} feeds {} would "
      "need ~{:.1f} of {} cores{}",
      size.decode_ms, size.wanted, size.screens == DemoScreens::none ? "decoded" : "on screens",
      size.cores_per_feed * static_cast<double>(size.wanted), size.cores,
      busy ? fmt::format(" ({:.1f} left by other work)", size.cores_left) : std::string());
  if (size.feeds >= size.wanted) {
    return fmt::format("demo: {} feeds: {} (within the {:.0f} % it keeps to)", size.feeds, cost,
                       kDemoBudgetShare * 100);
  }
  return fmt::format(
      "demo: {} of {} feeds: {} and the demo keeps to {:.0f} % (--streams {} runs "
      "them all)",
      size.feeds, size.wanted, cost, kDemoBudgetShare * 100, size.wanted);
}

}  // namespace hdstream
