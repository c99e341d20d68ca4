// Waiting for a condition that cannot notify us (another process, a kernel counter).
//   ASSERT_TRUE(test::eventually([&] { return counters.frames >= 5; }));
#pragma once

#include <chrono>
#include <functional>
#include <thread>

namespace hdstream::test {

// Polls `condition` until it holds or `timeout` passes: for conditions in another process,
// which cannot notify us.
inline bool eventually(const std::function<bool()>& condition,
                       std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return condition();
}

}  // namespace hdstream::test
