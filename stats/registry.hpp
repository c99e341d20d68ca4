// Owns the counters of every stream in a run and turns them into snapshots on demand.
//   StatsRegistry stats(Role::recv, 5, "tcp");
//   stats.stream(2).bytes.fetch_add(n);  Snapshot s = stats.sample();
#pragma once

#include <array>
#include <chrono>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "stats/counters.hpp"
#include "stats/latency.hpp"
#include "stats/snapshot.hpp"

namespace hdstream {

class StatsRegistry {
 public:
  StatsRegistry(Role role, std::size_t streams, std::string transport);

  StreamCounters& stream(std::size_t index) { return streams_[index]; }
  // Leg `leg` (0 = A, 1 = B) of a protected feed on stream `index`: that path's own figures.
  StreamCounters& leg(std::size_t index, std::size_t leg) { return legs_[index * 2 + leg]; }
  std::size_t size() const { return streams_.size(); }
  Role role() const { return role_; }
  // Frame ready -> received whole, all streams together (receiving side only).
  LatencyHistogram& latency() { return latency_; }

  // Reads every counter; `mbps` is over the time since the previous sample(). Thread safe.
  Snapshot sample();
  // Reads every counter without touching sample()'s rate baseline (`mbps` stays 0), so the
  // panel and /metrics can read at their own pace and compute rates themselves. Thread safe.
  Snapshot read() const;
  // Sender: the per-frame transit samples the far end reported for stream `stream` (FEEDBACK)
  // since the last call, oldest first; at most kSenderTransitCapacity wait between calls (the
  // oldest beyond are dropped and counted in FarEndSnapshot::transits_dropped). Thread safe.
  // A protected feed's legs report on their own: leg(stream, i).far_end.transits.take().
  std::vector<TransitSample> take_transits(std::size_t stream);

 private:
  Role role_;
  std::string transport_;
  std::deque<StreamCounters> streams_;  // deque: atomics are neither movable nor copyable
  std::deque<StreamCounters> legs_;     // two per stream
  std::chrono::steady_clock::time_point start_;
  std::mutex sample_mutex_;
  std::chrono::steady_clock::time_point previous_time_;
  std::vector<std::uint64_t> previous_bytes_;
  std::vector<std::array<std::uint64_t, kMaxSubconnectionCounters>> previous_subconnection_bytes_;
  std::vector<std::uint64_t> previous_leg_bytes_;
  LatencyHistogram latency_;
};

}  // namespace hdstream
