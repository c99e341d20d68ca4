// Wall-clock timestamps carried on the wire: nanoseconds since the Unix epoch (CLOCK_REALTIME),
// so that hosts synchronised by NTP/PTP can compare them; same-host tests compare exactly.
//   std::int64_t sent_ns = hdstream::wall_clock_ns();
#pragma once

#include <chrono>
#include <cstdint>
#include <ctime>

namespace hdstream {

// Patience that never runs out (a live feed reconnecting for as long as the show runs), and a
// deadline that does not overflow with it.
inline constexpr std::chrono::nanoseconds kForever = std::chrono::nanoseconds::max();

inline std::chrono::steady_clock::time_point deadline_after(std::chrono::nanoseconds patience) {
  const auto now = std::chrono::steady_clock::now();
  if (patience >= std::chrono::steady_clock::time_point::max() - now) {
    return std::chrono::steady_clock::time_point::max();
  }
  return now + std::chrono::duration_cast<std::chrono::steady_clock::duration>(patience);
}

inline std::int64_t wall_clock_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Monotonic nanoseconds, for durations measured within one process.
inline std::int64_t steady_clock_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The same clock in seconds: the panel's clock (gui/panel_window.hpp), inputs' fresh_s.
inline double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// CPU time in seconds on a POSIX CPU clock: CLOCK_PROCESS_CPUTIME_ID (this process, every
// thread) or CLOCK_THREAD_CPUTIME_ID (the calling thread).
inline double cpu_clock_seconds(clockid_t clock) {
  timespec now{};
  clock_gettime(clock, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

}  // namespace hdstream
