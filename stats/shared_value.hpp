// A value one thread sets and others read, too big to be atomic (the far end's name, a feed's
// sound levels in StreamCounters): a mutex, held only for the copy.
//   counters.far_end.receiver.set("portland-rx (hdstream 0.1.0)");
//   std::string name = counters.far_end.receiver.get();
#pragma once

#include <mutex>
#include <string>
#include <utility>

namespace hdstream {

template <typename T>
class SharedValue {
 public:
  void set(T value) {
    std::lock_guard lock(mutex_);
    value_ = std::move(value);
  }
  T get() const {
    std::lock_guard lock(mutex_);
    return value_;
  }

 private:
  mutable std::mutex mutex_;
  T value_{};
};

using SharedText = SharedValue<std::string>;

}  // namespace hdstream
