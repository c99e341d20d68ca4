#include "app/runtime.hpp"

#include <csignal>
#include <iostream>
#include <thread>

#include <fmt/format.h>

#include "common/log.hpp"
#include "common/log_rate_limit.hpp"

namespace hdstream {

StatsOutput::StatsOutput(const CommonOptions& options) {
  std::ostream* out = &std::cout;
  if (options.stats_file != "-") {
    file_.open(options.stats_file, std::ios::out | std::ios::trunc);
    if (!file_) {
      throw UsageError(fmt::format("--stats-file: cannot write '{}'", options.stats_file));
    }
    out = &file_;
  }
  out_ = out;
  report_ = std::make_unique<StatsReport>(options.stats_format, *out);
}

Runtime::Runtime(IoThreads threads)
    : threads_(threads == IoThreads::one ? 1u : std::max(1u, std::thread::hardware_concurrency())),
      io_(static_cast<int>(threads_)),
      strand_(asio::make_strand(io_)),
      signals_(strand_, SIGINT, SIGTERM),
      stats_timer_(strand_),
      deadline_timer_(strand_) {
  signals_.async_wait([this](boost::system::error_code ec, int signal_number) {
    if (ec) return;
    auto handle = [this](int number) {
      if (++signal_count_ > 1) {
        logger("hdstream")
            ->warn("second {}: stopping now", number == SIGINT ? "SIGINT" : "SIGTERM");
        io_.stop();
        return;
      }
      logger("hdstream")
          ->info("{}: finishing feeds (again to stop now)",
                 number == SIGINT ? "SIGINT" : "SIGTERM");
      interrupted_ = true;
      stop_.request_stop();
      if (on_interrupt_) on_interrupt_();
    };
    handle(signal_number);
    // Keep listening for the second signal.
    signals_.async_wait([this, handle](boost::system::error_code again, int number) {
      if (!again) handle(number);
    });
  });
}

void Runtime::start_stats(std::chrono::nanoseconds interval, std::function<void()> tick) {
  stats_tick_ = std::move(tick);
  asio::co_spawn(strand_, stats_loop(interval), asio::detached);
}

void Runtime::deadline(std::chrono::nanoseconds duration, std::function<void()> expired) {
  asio::post(strand_, [this, duration, expired = std::move(expired)]() mutable {
    if (shut_down_) return;
    deadline_timer_.expires_after(duration);
    deadline_timer_.async_wait([expired = std::move(expired)](boost::system::error_code ec) {
      if (!ec) expired();
    });
  });
}

awaitable<void> Runtime::stats_loop(std::chrono::nanoseconds interval) {
  auto next = std::chrono::steady_clock::now();
  for (;;) {
    next += interval;
    stats_timer_.expires_at(next);
    error_code ec;
    co_await stats_timer_.async_wait(nothrow(ec));
    if (ec || shut_down_) co_return;
    stats_tick_();
    // What a flood of refusals held back, counted once it is over.
    LogRateLimit::flush_all();
  }
}

void Runtime::shutdown() {
  asio::post(strand_, [this] {
    if (shut_down_.exchange(true)) return;
    boost::system::error_code ignored;
    signals_.cancel(ignored);
    stats_timer_.cancel();
    deadline_timer_.cancel();
    if (on_shutdown_) on_shutdown_();
  });
}

void Runtime::request_stop() {
  asio::post(strand_, [this] {
    if (shut_down_ || stop_.stop_requested()) return;
    stop_.request_stop();
    if (on_interrupt_) on_interrupt_();
  });
}

void Runtime::run() {
  std::vector<std::jthread> pool;
  for (unsigned i = 1; i < threads_; ++i) pool.emplace_back([this] { io_.run(); });
  io_.run();
  pool.clear();
  // The last counts of lines held back, whether or not their period is over.
  LogRateLimit::flush_all(LogRateLimit::Clock::time_point::max());
}

}  // namespace hdstream
