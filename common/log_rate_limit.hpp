// Lets a burst of log lines through per period and holds the rest back, counting them; the count
// goes out with the next line let through. For lines a remote peer can provoke at will: a flood
// of hostile connections must not become a flood of log lines.
//   LogRateLimit limit(5, std::chrono::seconds(10));
//   if (auto held_back = limit.admit()) log->warn("refused ...{}", held_back_note(*held_back));
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

#include <fmt/format.h>

namespace hdstream {

class LogRateLimit {
 public:
  using Clock = std::chrono::steady_clock;

  LogRateLimit(std::size_t burst, Clock::duration period) : burst_(burst), period_(period) {}

  // nullopt: hold this line back. Otherwise log it, with the number of lines held back since the
  // last one let through. Thread safe.
  std::optional<std::uint64_t> admit(Clock::time_point now = Clock::now()) {
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

 private:
  std::mutex mutex_;
  std::size_t burst_;
  Clock::duration period_;
  Clock::time_point window_start_{};
  std::size_t in_window_ = 0;
  std::uint64_t held_back_ = 0;
};

// " (N similar lines held back)", or nothing when none were.
inline std::string held_back_note(std::uint64_t held_back) {
  return held_back == 0 ? std::string() : fmt::format(" ({} similar lines held back)", held_back);
}

}  // namespace hdstream
