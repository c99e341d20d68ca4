// How many feeds `hdstream demo` runs on this machine when the operator did not say: as many of
// the five as fit in the demo's CPU budget, from what decoding its own bars clip costs here
// (media/decode_cost.hpp) and the cores the machine's other work leaves (common/cpu_room.hpp).
// The demo is judged at <= 75 % of the machine (docs/PERFORMANCE.md); it plans for
// kDemoBudgetShare of what is left, the rest a margin for the model's error.
//   const DemoSize size = size_demo(5, 0.0097, 29.97, {2, 2.0}, DemoScreens::x11);   // 2 feeds
//   log->info("{}", describe(size));   // what was measured, and how to insist
#pragma once

#include <cstddef>
#include <string>

namespace hdstream {

// The share of the machine the demo plans to use.
inline constexpr double kDemoBudgetShare = 0.7;
// A feed costs its decodes times these, everything else of the feed included: its sender
// (file read, hash, TCP), its receiver (TCP, verify, sound, meters) and, with screens, the
// multiview's scaling and painting, the panel and the display server. Measured on the demo
// itself (5 feeds on 2 cores, AMD EPYC, bars clip 4.1 ms a frame: 0.95 cores decoded and
// discarded, 1.26 with the multiview and panel under Xvfb, the X server included), rounded up.
// Under Wayland, Qt's shared-memory buffers and the compositor cost more than an X server:
// 1.44 cores for the same 5 feeds under weston (pixman), the compositor included.
inline constexpr double kFeedCostHeadless = 1.7;
inline constexpr double kFeedCostOnX = 2.1;
inline constexpr double kFeedCostOnWayland = 2.4;

// Where the demo's pictures go: nowhere (decoded and discarded), an X server, a Wayland
// compositor.
enum class DemoScreens { none, x11, wayland };

// The machine: its cores, and those its other work left over the measurement.
struct DemoMachine {
  unsigned cores = 1;
  double cores_left = 1;
};

struct DemoSize {
  std::size_t wanted = 0;     // the feeds the demo runs by default
  std::size_t feeds = 0;      // those that fit (at least one)
  double decode_ms = 0;       // one frame of the bars clip, CPU ms
  double cores_per_feed = 0;  // a feed's whole cost, predicted
  unsigned cores = 0;         // of the machine
  double cores_left = 0;      // of those, what the machine's other work left
  DemoScreens screens = DemoScreens::none;
};

DemoSize size_demo(std::size_t wanted, double decode_seconds_per_frame, double frames_per_second,
                   DemoMachine machine, DemoScreens screens);

// One line for the log: what was measured and why the demo runs fewer feeds than it would.
std::string describe(const DemoSize& size);

}  // namespace hdstream
