#include "common/log_rate_limit.hpp"

#include <set>

namespace hdstream {
namespace {

// Every limit that reports to a log, for flush_all().
struct Registry {
  std::mutex mutex;
  std::set<LogRateLimit*> limits;
};

Registry& registry() {
  static Registry instance;  // outlives every limit with static storage made after it
  return instance;
}

}  // namespace

LogRateLimit::LogRateLimit(std::size_t burst, Clock::duration period,
                           std::shared_ptr<spdlog::logger> log, std::string what)
    : burst_(burst), period_(period), log_(std::move(log)), what_(std::move(what)) {
  if (!log_) return;
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  r.limits.insert(this);
}

LogRateLimit::~LogRateLimit() {
  if (!log_) return;
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  r.limits.erase(this);
}

std::optional<std::uint64_t> LogRateLimit::admit(Clock::time_point now) {
  std::lock_guard lock(mutex_);
  if (now - window_start_ >= period_) {
    window_start_ = now;
    in_window_ = 0;
  }
  if (in_window_ >= burst_) {
    ++held_back_;
    return std::nullopt;
  }
  ++in_window_;
  const std::uint64_t held_back = held_back_;
  held_back_ = 0;
  return held_back;
}

std::optional<std::uint64_t> LogRateLimit::take_ended(Clock::time_point now) {
  std::lock_guard lock(mutex_);
  if (held_back_ == 0 || now - window_start_ < period_) return std::nullopt;
  return std::exchange(held_back_, 0);
}

void LogRateLimit::flush_all(Clock::time_point now) {
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  for (LogRateLimit* limit : r.limits) {
    if (auto held_back = limit->take_ended(now)) {
      const auto seconds = std::chrono::duration<double>(limit->period_).count();
      limit->log_->warn("{}: … and {} more like it in {:g} s", limit->what_, *held_back, seconds);
    }
  }
}

}  // namespace hdstream
