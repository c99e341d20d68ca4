// What every command that moves feeds runs on, assembled once: the stats output (text or JSON
// lines), the runtime, the stats registries, the periodic tick (lines, and the series a link
// report plots), the parts whose end ends the run (sender and receiver groups), how the run is
// finished early (a signal, --duration), the front ends (panel, /metrics, screens) and the exit
// code. send, recv, demo, bench and check build on it.
//   CommandRun run(options.common);
//   StatsRegistry& stats = run.add_registry(Role::send, feeds.size(), "tcp", {.record = true});
//   SenderGroup senders(run.runtime(), stats, std::move(feeds), run.part());
//   run.start_stats();  senders.start();  run.run_with_frontends(gui, "hdstream send", {endpoint});
//   return run.exit_code(summarize(stats.sample()), senders.failures() > 0);
#pragma once

#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "app/frontends.hpp"
#include "app/options.hpp"
#include "app/runtime.hpp"
#include "report/link_recorder.hpp"
#include "stats/registry.hpp"
#include "stats/report.hpp"
#include "stats/summary.hpp"

namespace hdstream {

// When a registry's snapshots are printed at each tick.
enum class Lines : std::uint8_t { always, json_only, never };

struct RegistryOptions {
  Lines lines = Lines::always;
  bool record = false;  // keep the series a link report plots (recorder())
  // Called with each tick's snapshot, on the tick's strand (check --acceptance records its
  // phases with it).
  std::function<void(const Snapshot&)> on_sample;
};

class CommandRun {
 public:
  // Opens the stats output (throws UsageError when --stats-file cannot be written).
  explicit CommandRun(const CommonOptions& common, IoThreads threads = IoThreads::one);

  Runtime& runtime() { return runtime_; }
  bool interrupted() const { return runtime_.interrupted(); }
  StatsReport& report() { return output_.report(); }
  std::ostream& stream() { return output_.stream(); }
  const LinkRecorder& recorder() const { return recorder_; }

  // A registry of this run: sampled at each tick and shown by the front ends, in the order
  // added. Stays valid for the run's life.
  StatsRegistry& add_registry(Role role, std::size_t streams, std::string transport,
                              RegistryOptions options = {});

  // One more part the run waits for (a sender or receiver group): call the returned function
  // when it is done. The runtime shuts down once every part is.
  std::function<void()> part();
  // How to end the run early: `stop` runs once (receivers close), then the runtime shuts down.
  // finish() does that now (thread safe, idempotent); finish_on_interrupt() on the first
  // SIGINT/SIGTERM (otherwise a signal only asks the feeds to stop at their next frame);
  // finish_after() once `duration` has passed (0: never).
  void on_finish(std::function<void()> stop) { stop_ = std::move(stop); }
  void finish();
  void finish_on_interrupt();
  void finish_after(std::chrono::nanoseconds duration);

  // Ticks every `interval` (default: --interval): each registry's snapshot printed as its
  // options say, and recorded where asked.
  void start_stats();
  void start_stats(std::chrono::nanoseconds interval);

  // Runs until the runtime stops: with the panel when `gui`, /metrics when --metrics-listen
  // asks, and the screens of `pictures`. `endpoints`: each registry's, as the front ends show
  // it. run() alone runs without front ends (bench, check's probe).
  void run_with_frontends(bool gui, const std::string& title,
                          const std::vector<std::string>& endpoints,
                          const Pictures* pictures = nullptr);
  void run() { runtime_.run(); }

  // interrupted -> 130, a feed that could not run -> 1, failed verdict -> 3, else 0.
  int exit_code(const Summary& summary, bool runtime_failure) const;

 private:
  struct Entry {
    Entry(Role role, std::size_t streams, std::string transport, RegistryOptions how)
        : registry(role, streams, std::move(transport)), options(how) {}
    StatsRegistry registry;  // neither movable nor copyable: made in place
    RegistryOptions options;
  };

  const CommonOptions common_;
  StatsOutput output_;
  Runtime runtime_;
  std::deque<Entry> registries_;  // a deque: registries stay where they are as more are added
  LinkRecorder recorder_;
  std::atomic<int> parts_{0};
  std::function<void()> stop_;
  std::atomic<bool> finishing_{false};
};

}  // namespace hdstream
