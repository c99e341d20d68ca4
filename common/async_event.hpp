// A latch for coroutines on one strand: wait() resumes once set() has been called.
//   AsyncEvent done(strand);  ... co_await done.wait();   // elsewhere: done.set();
#pragma once

#include <chrono>

#include "common/asio.hpp"

namespace hdstream {

class AsyncEvent {
 public:
  explicit AsyncEvent(const asio::any_io_executor& executor)
      : timer_(executor, std::chrono::steady_clock::time_point::max()) {}

  void set() {
    set_ = true;
    timer_.cancel();
  }

  // Must run on the same strand as set(): the check and the wait happen without a suspension
  // in between, so a set() cannot slip through unnoticed.
  awaitable<void> wait() {
    error_code ignored;
    while (!set_) co_await timer_.async_wait(nothrow(ignored));
  }

  // Unlatches, for an owner that starts over (wait() then waits for the next set()).
  void reset() { set_ = false; }

  // Wakes current waiters without latching (for "something changed, look again").
  void notify() { timer_.cancel(); }
  awaitable<void> wait_for_notify() {
    error_code ignored;
    co_await timer_.async_wait(nothrow(ignored));
  }

 private:
  asio::steady_timer timer_;
  bool set_ = false;
};

}  // namespace hdstream
