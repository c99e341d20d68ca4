// A short text one thread sets and others read (the far end's name in StreamCounters): strings
// are not atomic, so a mutex, held only for the copy.
//   counters.far_end.receiver.set("portland-rx (hdstream 0.1.0)");  auto name =
//   counters.far_end.receiver.get();
#pragma once

#include <mutex>
#include <string>

namespace hdstream {

class SharedText {
 public:
  void set(std::string text) {
    std::lock_guard lock(mutex_);
    text_ = std::move(text);
  }
  std::string get() const {
    std::lock_guard lock(mutex_);
    return text_;
  }

 private:
  mutable std::mutex mutex_;
  std::string text_;
};

}  // namespace hdstream
