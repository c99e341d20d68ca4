// A bounded frame queue between two threads, with both policies a live feed needs: the network
// side pushes without ever blocking (the oldest frame is dropped, and reported, when full); a
// capture side may instead wait for room. Storage is a fixed ring: no allocation per frame.
//   FrameQueue queue(4);
//   if (queue.push_drop_oldest(frame)) ++dropped;      // network strand: never blocks
//   while (FramePtr f = queue.pop_wait()) decode(*f);  // worker: null once closed and drained
#pragma once

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <vector>

#include "protocol/frame.hpp"

namespace hdstream {

class FrameQueue {
 public:
  explicit FrameQueue(std::size_t capacity) : ring_(capacity < 1 ? 1 : capacity) {}

  // Never blocks. When full, the oldest queued frame is dropped to make room: the freshest
  // picture is the one a live display wants, and the oldest is the closest to being too late.
  // Returns true when a frame was dropped. After close() the frame is refused (returns true).
  bool push_drop_oldest(FramePtr frame) {
    std::lock_guard lock(mutex_);
    if (closed_) return true;
    bool dropped = false;
    if (size_ == ring_.size()) {
      ring_[head_].reset();
      head_ = (head_ + 1) % ring_.size();
      --size_;
      dropped = true;
    }
    ring_[(head_ + size_) % ring_.size()] = std::move(frame);
    ++size_;
    ready_.notify_one();
    return dropped;
  }

  // Waits for room (back-pressure on a capture thread). false if closed meanwhile.
  bool push_wait(FramePtr frame) {
    std::unique_lock lock(mutex_);
    room_.wait(lock, [&] { return closed_ || size_ < ring_.size(); });
    if (closed_) return false;
    ring_[(head_ + size_) % ring_.size()] = std::move(frame);
    ++size_;
    ready_.notify_one();
    return true;
  }

  // The oldest frame, or null when empty. Never blocks.
  FramePtr try_pop() {
    std::lock_guard lock(mutex_);
    return take();
  }

  // Waits for a frame; null once the queue is closed and empty.
  FramePtr pop_wait() {
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [&] { return closed_ || size_ > 0; });
    return take();
  }

  // Waits until at least one frame is queued (or the queue is closed, or `timeout` passes)
  // without taking it: a capture source primes its queue before the pacer's first tick.
  template <typename Duration>
  bool wait_not_empty(Duration timeout) {
    std::unique_lock lock(mutex_);
    return ready_.wait_for(lock, timeout, [&] { return closed_ || size_ > 0; }) && size_ > 0;
  }

  // Refuses further pushes and wakes every waiter; frames already queued can still be popped.
  void close() {
    std::lock_guard lock(mutex_);
    closed_ = true;
    ready_.notify_all();
    room_.notify_all();
  }

  std::size_t depth() const {
    std::lock_guard lock(mutex_);
    return size_;
  }
  std::size_t capacity() const { return ring_.size(); }
  bool closed() const {
    std::lock_guard lock(mutex_);
    return closed_;
  }

 private:
  FramePtr take() {
    if (size_ == 0) return nullptr;
    FramePtr frame = std::move(ring_[head_]);
    head_ = (head_ + 1) % ring_.size();
    --size_;
    room_.notify_one();
    return frame;
  }

  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::condition_variable room_;
  std::vector<FramePtr> ring_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
  bool closed_ = false;
};

}  // namespace hdstream
