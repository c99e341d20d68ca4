// Wall-clock timestamps carried on the wire: nanoseconds since the Unix epoch (CLOCK_REALTIME),
// so that hosts synchronised by NTP/PTP can compare them; same-host tests compare exactly.
//   std::int64_t sent_ns = hdstream::wall_clock_ns();
#pragma once

#include <chrono>
#include <cstdint>

namespace hdstream {

inline std::int64_t wall_clock_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace hdstream
