// Keeps the per-interval throughput of a run for the link report's plot and table.
//   LinkRecorder recorder;  recorder.add(stats.sample());  ...  recorder.series()
#pragma once

#include <mutex>
#include <vector>

#include "stats/snapshot.hpp"

namespace hdstream {

struct ThroughputPoint {
  double t = 0;  // seconds since the run started
  double aggregate_mbps = 0;
  std::vector<double> stream_mbps;  // by stream index
};

class LinkRecorder {
 public:
  // Thread safe: called from the stats tick.
  void add(const Snapshot& snapshot);
  std::vector<ThroughputPoint> series() const;

 private:
  mutable std::mutex mutex_;
  std::vector<ThroughputPoint> points_;
};

}  // namespace hdstream
