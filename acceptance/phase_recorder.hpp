// Records one phase of an acceptance run from the sender's side: at every stats tick, each
// feed's RTT and the transit samples its receiver sent back since the last tick (so none wait
// in the registry's bounded buffer); after the run, the final counts of the receiver's last
// report.
//   PhaseRecorder recorder(stats, 29.97);
//   ... RegistryOptions{.on_sample = [&](const Snapshot& s) { recorder.tick(s); }} ...
//   std::vector<FeedRecord> feeds = recorder.finish(stats.sample());
#pragma once

#include <optional>
#include <vector>

#include "acceptance/phase_figures.hpp"
#include "stats/registry.hpp"

namespace hdstream {

class PhaseRecorder {
 public:
  // `warm_up_s`: the transport's retransmission counts start after it (PhaseInput::warm_up_s).
  PhaseRecorder(StatsRegistry& stats, double frame_rate, double warm_up_s);

  // On the stats tick's strand.
  void tick(const Snapshot& snapshot);
  // Once the run is over: what is left of the samples, and the final counts.
  std::vector<FeedRecord> finish(const Snapshot& last);

 private:
  void take(const Snapshot& snapshot);

  struct TransportCounts {
    std::uint64_t retransmits = 0;
    std::uint64_t sent = 0;
  };

  StatsRegistry& stats_;
  double warm_up_s_;
  std::vector<FeedRecord> feeds_;
  std::vector<std::optional<TransportCounts>> after_warm_up_;  // the first reading past it
};

}  // namespace hdstream
