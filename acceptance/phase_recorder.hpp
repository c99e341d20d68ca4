// Records one phase of an acceptance run from the sender's side: at every stats tick, each
// feed's RTT and the transit samples its receiver sent back since the last tick (so none wait
// in the registry's bounded buffer); after the run, the final counts of the receiver's last
// report.
//   PhaseRecorder recorder(stats, 29.97);
//   ... RegistryOptions{.on_sample = [&](const Snapshot& s) { recorder.tick(s); }} ...
//   std::vector<FeedRecord> feeds = recorder.finish(stats.sample());
#pragma once

#include <vector>

#include "acceptance/phase_figures.hpp"
#include "stats/registry.hpp"

namespace hdstream {

class PhaseRecorder {
 public:
  PhaseRecorder(StatsRegistry& stats, double frame_rate);

  // On the stats tick's strand.
  void tick(const Snapshot& snapshot);
  // Once the run is over: what is left of the samples, and the final counts.
  std::vector<FeedRecord> finish(const Snapshot& last);

 private:
  void take(const Snapshot& snapshot);

  StatsRegistry& stats_;
  std::vector<FeedRecord> feeds_;
};

}  // namespace hdstream
