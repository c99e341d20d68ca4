// A FrameConsumer that records what a receiver delivers; tests wait on it with a deadline.
//   test::Collector c;  ASSERT_TRUE(c.wait_until([](auto& c) { return c.ended_.count(0); }));
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <vector>

#include "protocol/checksum.hpp"
#include "transport/transport.hpp"

namespace hdstream::test {

using namespace std::chrono_literals;

class Collector : public FrameConsumer {
 public:
  void session_started(std::uint16_t stream, const Hello&) override {
    std::lock_guard lock(mutex_);
    ++sessions_[stream];
    changed_.notify_all();
  }
  void frame_received(std::uint16_t stream, FramePtr frame) override {
    std::lock_guard lock(mutex_);
    checksums_[stream].push_back({frame->seq, payload_checksum(frame->data)});
    changed_.notify_all();
  }
  void session_ended(std::uint16_t stream, bool clean, std::uint64_t next_seq) override {
    std::lock_guard lock(mutex_);
    ended_[stream] = clean;
    (void)next_seq;
    changed_.notify_all();
  }

  template <typename Predicate>
  bool wait_until(Predicate done, std::chrono::milliseconds timeout = 10s) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, timeout, [&] { return done(*this); });
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<std::uint16_t, int> sessions_;
  std::map<std::uint16_t, std::vector<std::pair<std::uint64_t, std::uint64_t>>> checksums_;
  std::map<std::uint16_t, bool> ended_;
};

}  // namespace hdstream::test
