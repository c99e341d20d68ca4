// The cores the rest of this machine leaves a process: the machine's idle time over a window
// (the aggregate "cpu" line of /proc/stat), plus the CPU the process itself used meanwhile, so
// that what it does while measuring counts as its own. A busy neighbour (a build, a second
// program spinning a core) shows as fewer cores left.
//   CpuRoom room;                       // the window starts now
//   ...work...
//   const double left = room.cores_left(std::chrono::milliseconds(500));   // e.g. 1.0 of 2
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string_view>

namespace hdstream {

// A machine's CPU time in clock ticks since boot, every core together.
struct CpuTicks {
  std::uint64_t total = 0;
  std::uint64_t idle = 0;
  std::uint64_t iowait = 0;  // idle too, but proc(5): it may go down
};

// The first line of /proc/stat ("cpu  user nice system idle iowait irq softirq steal ..."); nullopt
// when it is not that line, a field is not a number or one is beyond any real count (2^60).
std::optional<CpuTicks> parse_cpu_ticks(std::string_view proc_stat);

// The cores left over a window: the machine's idle share of `cores` plus the cores the process
// used (its CPU seconds over the window's wall seconds), at most `cores`.
double cores_left(const CpuTicks& before, const CpuTicks& after, double own_cpu_seconds,
                  double wall_seconds, unsigned cores);

class CpuRoom {
 public:
  CpuRoom();
  // Waits until the window is at least `at_least` long (clock ticks are 10 ms: a short window
  // says little), then measures. Without /proc/stat, every core.
  double cores_left(std::chrono::steady_clock::duration at_least) const;

 private:
  std::optional<CpuTicks> start_ticks_;
  double start_own_s_ = 0;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace hdstream
