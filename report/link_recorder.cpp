#include "report/link_recorder.hpp"

namespace hdstream {

void LinkRecorder::add(const Snapshot& snapshot) {
  ThroughputPoint point;
  point.t = snapshot.t;
  point.aggregate_mbps = snapshot.aggregate_mbps();
  for (const auto& stream : snapshot.streams) point.stream_mbps.push_back(stream.mbps);
  std::lock_guard lock(mutex_);
  points_.push_back(std::move(point));
}

std::vector<ThroughputPoint> LinkRecorder::series() const {
  std::lock_guard lock(mutex_);
  return points_;
}

}  // namespace hdstream
