// Lets a burst of log lines through per period and holds the rest back, counting them; the count
// goes out with the next line let through, or, when none follows (the flood stopped), as its own
// line once the period is over ("… and 1,482 more like it"), from flush_all(), which the stats
// tick runs. For lines a remote peer can provoke at will: a flood of hostile connections must not
// become a flood of log lines, nor hide how big it was.
//   LogRateLimit limit(5, std::chrono::seconds(10), logger("tcp"), "refused a stranger");
//   if (auto held_back = limit.admit()) log->warn("refused ...{}", held_back_note(*held_back));
//   LogRateLimit::flush_all();   // periodically: "refused a stranger: … and 1,482 more like it"
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace hdstream {

class LogRateLimit {
 public:
  using Clock = std::chrono::steady_clock;

  // `log` and `what`: where flush_all() reports the lines held back in a period no line
  // followed ("what: … and N more like it in 10 s"); without a log, they are only counted.
  LogRateLimit(std::size_t burst, Clock::duration period,
               std::shared_ptr<spdlog::logger> log = nullptr, std::string what = {});
  ~LogRateLimit();
  LogRateLimit(const LogRateLimit&) = delete;
  LogRateLimit& operator=(const LogRateLimit&) = delete;

  // nullopt: hold this line back. Otherwise log it, with the number of lines held back since the
  // last one let through. Thread safe.
  std::optional<std::uint64_t> admit(Clock::time_point now = Clock::now());

  // The lines held back in a period that has ended since, counted once (then zero); nullopt
  // when there are none or the period still runs. Thread safe.
  std::optional<std::uint64_t> take_ended(Clock::time_point now = Clock::now());

  // Reports every limit's take_ended() to its log. Thread safe.
  static void flush_all(Clock::time_point now = Clock::now());

 private:
  std::mutex mutex_;
  std::size_t burst_;
  Clock::duration period_;
  std::shared_ptr<spdlog::logger> log_;
  std::string what_;
  Clock::time_point window_start_{};
  std::size_t in_window_ = 0;
  std::uint64_t held_back_ = 0;
};

// " (N similar lines held back)", or nothing when none were.
inline std::string held_back_note(std::uint64_t held_back) {
  return held_back == 0 ? std::string() : fmt::format(" ({} similar lines held back)", held_back);
}

}  // namespace hdstream
