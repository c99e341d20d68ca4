// A run of the plan's feeds as capacity probes (HELLO flag kHelloProbe): the receiver measures
// them apart from its real feeds and reports back in FEEDBACK, as for a feed. `check` runs one
// for its capacity probe, `check --acceptance` one per ramp step and one for the soak.
//   ProbeRun run(options.common, plan, 30s);
//   run.on_sample([&](const Snapshot& s) { recorder.tick(s); });
//   const Snapshot last = run.run();   // the receiver's final report included
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <vector>

#include "app/command_run.hpp"
#include "app/send_plan.hpp"

namespace hdstream {

class ProbeRun {
 public:
  // Prints no lines and leaves --stats-file alone: check writes its own result.
  ProbeRun(const CommonOptions& common, const SendPlan& plan, std::chrono::nanoseconds duration);

  StatsRegistry& stats() { return *stats_; }
  // Called with every tick's snapshot (every 250 ms), on the tick's strand. Before run().
  void on_sample(std::function<void(const Snapshot&)> observer) { observer_ = std::move(observer); }

  // Sends until the duration is over or SIGINT/SIGTERM asks the feeds to stop (they end
  // cleanly: END, and the receiver's final report); returns the last snapshot.
  Snapshot run();
  bool interrupted() const { return run_.interrupted(); }
  std::vector<ThroughputPoint> series() const { return run_.recorder().series(); }

 private:
  std::vector<FeedSetup> feeds_;
  CommandRun run_;
  StatsRegistry* stats_ = nullptr;
  std::function<void(const Snapshot&)> observer_;
};

}  // namespace hdstream
