// Snapshots for the stats tests: five finished 270 Mbps feeds of 300 frames at 29.97 fps.
//   Snapshot snapshot = test::five_feeds();  snapshot.streams[1].drops = 3;
#pragma once

#include <cstdint>

#include "stats/snapshot.hpp"

namespace hdstream::test {

inline StreamSnapshot finished_stream(std::uint16_t id, std::uint64_t frames,
                                      std::uint64_t frame_bytes) {
  StreamSnapshot s;
  s.stream = id;
  s.transport = "tcp";
  s.state = StreamState::finished;
  s.frames = frames;
  s.bytes = frames * frame_bytes;
  s.planned_bps = 270'000'000;
  s.first_frame_ns = 1'000'000'000;
  // frames at 29.97 fps: n frames span n-1 periods.
  s.last_frame_ns =
      s.first_frame_ns + static_cast<std::int64_t>((frames - 1) * 1001.0 / 30000 * 1e9);
  return s;
}

inline Snapshot five_feeds() {
  Snapshot snapshot;
  snapshot.t = 10.0;
  snapshot.role = Role::recv;
  for (std::uint16_t i = 0; i < 5; ++i)
    snapshot.streams.push_back(finished_stream(i, 300, 1'126'125));
  return snapshot;
}

}  // namespace hdstream::test
