// What every command runs on: one io_context driven by one thread per core, SIGINT/SIGTERM
// handling, the periodic stats tick, and the stats output stream.
//   Runtime runtime;  runtime.start_stats(1s, [&] { report.interval(stats.sample()); });
//   ...spawn work that calls runtime.shutdown() when done...;  runtime.run();
#pragma once

#include <atomic>
#include <chrono>
#include <fstream>
#include <functional>
#include <memory>
#include <ostream>
#include <stop_token>
#include <string>
#include <vector>

#include "app/options.hpp"
#include "app/usage_error.hpp"
#include "common/asio.hpp"
#include "stats/report.hpp"

namespace hdstream {

class StatsOutput {
 public:
  explicit StatsOutput(const CommonOptions& options);  // throws UsageError if unwritable
  StatsReport& report() { return *report_; }
  std::ostream& stream() { return *out_; }

 private:
  std::ofstream file_;
  std::ostream* out_ = nullptr;
  std::unique_ptr<StatsReport> report_;
};

// I/O threads for the io_context. Live feeds: one. A paced feed's network work is a few
// percent of a core and each connection's work is serialized on its strand anyway, while a
// second thread adds cross-thread wake-ups: at 5 x 270 Mbps two threads per process cost 0.62
// CPU s/GB against 0.45 with one (receiver 0.55 -> 0.33 s per 10 s, same latency). Memory-to-
// memory runs (bench), which saturate the cores, use one per core.
enum class IoThreads { one, per_core };

class Runtime {
 public:
  explicit Runtime(IoThreads threads = IoThreads::one);

  asio::io_context& io() { return io_; }
  // Requested on SIGINT/SIGTERM; feeds check it between frames.
  std::stop_token stop_token() const { return stop_.get_token(); }
  bool interrupted() const { return interrupted_.load(); }

  // Runs on the first SIGINT/SIGTERM (after the stop token is requested). A second signal
  // stops the io_context outright.
  void on_interrupt(std::function<void()> handler) { on_interrupt_ = std::move(handler); }
  void start_stats(std::chrono::nanoseconds interval, std::function<void()> tick);
  // Calls `expired` after `duration` unless shutdown() comes first.
  void deadline(std::chrono::nanoseconds duration, std::function<void()> expired);
  // Ends stats ticks and signal handling so that run() returns once the work is done.
  // Thread safe, idempotent.
  void shutdown();
  // Runs (on the runtime's strand) when shutdown() takes effect: for servers and pollers that
  // would otherwise keep the io_context busy forever.
  void on_shutdown(std::function<void()> handler) { on_shutdown_ = std::move(handler); }
  // Like the first SIGINT, but not an interruption (exit code stays the verdict's): closing
  // the panel window. Thread safe.
  void request_stop();
  // Blocks until the io_context runs out of work.
  void run();

 private:
  awaitable<void> stats_loop(std::chrono::nanoseconds interval);

  unsigned threads_;
  asio::io_context io_;
  asio::strand<asio::io_context::executor_type> strand_;  // serialises the members below
  asio::signal_set signals_;
  asio::steady_timer stats_timer_;
  asio::steady_timer deadline_timer_;
  std::function<void()> stats_tick_;
  std::function<void()> on_interrupt_;
  std::function<void()> on_shutdown_;
  std::stop_source stop_;
  std::atomic<bool> interrupted_{false};
  std::atomic<bool> shut_down_{false};
  int signal_count_ = 0;
};

}  // namespace hdstream
