#include "protocol/frame.hpp"

#include <algorithm>

#include "protocol/memory_budget.hpp"

namespace hdstream {

std::size_t FramePool::State::idle_room() const {
  return budget ? static_cast<std::size_t>(budget->unreserved_bytes()) : SIZE_MAX;
}

FramePool::FramePool(std::size_t max_idle_frames, std::shared_ptr<const MemoryBudget> budget)
    : state_(std::make_shared<State>()) {
  state_->max_idle = max_idle_frames;
  state_->budget = std::move(budget);
}

FramePtr FramePool::acquire(std::size_t bytes, std::size_t max_capacity_bytes) {
  std::unique_ptr<Frame> frame;
  std::vector<std::unique_ptr<Frame>> surplus;  // freed outside the lock
  {
    std::lock_guard lock(state_->mutex);
    // The smallest idle buffer that fits; else the oldest, whose buffer is replaced. Streams of
    // different frame sizes share a pool: one's frames must not take the buffers that fit the
    // other's while older ones sit unused.
    auto fits = [&](const std::unique_ptr<Frame>& idle) {
      const std::size_t capacity = idle->data.capacity();
      return capacity >= bytes + kFrameSlackBytes &&
             capacity - kFrameSlackBytes <= std::max(bytes, max_capacity_bytes);
    };
    auto chosen = state_->idle.end();
    for (auto it = state_->idle.begin(); it != state_->idle.end(); ++it) {
      if (fits(*it) &&
          (chosen == state_->idle.end() || (*it)->data.capacity() < (*chosen)->data.capacity())) {
        chosen = it;
      }
    }
    if (chosen == state_->idle.end() && !state_->idle.empty()) chosen = state_->idle.begin();
    if (chosen != state_->idle.end()) {
      frame = std::move(*chosen);
      state_->idle.erase(chosen);
      state_->idle_bytes -= frame->data.capacity();
    }
    // Sessions reserved room since these buffers went idle: give it to them.
    while (!state_->idle.empty() && state_->idle_bytes > state_->idle_room()) {
      state_->idle_bytes -= state_->idle.front()->data.capacity();
      surplus.push_back(std::move(state_->idle.front()));
      state_->idle.erase(state_->idle.begin());
    }
  }
  bool recycled = frame != nullptr;
  if (!frame) frame = std::make_unique<Frame>();
  const std::size_t capacity = frame->data.capacity();
  if (capacity < bytes + kFrameSlackBytes ||
      capacity - kFrameSlackBytes > std::max(bytes, max_capacity_bytes)) {
    // A fresh buffer of exactly that (growing the old one could double its capacity).
    frame->data = FrameBytes();
    frame->data.reserve(bytes + kFrameSlackBytes);
    recycled = false;
  }
  *frame = Frame{.recycled = recycled, .data = std::move(frame->data)};
  frame->data.resize(bytes);
  return FramePtr(frame.release(), [state = state_](Frame* released) {
    std::unique_ptr<Frame> owned(released);
    const std::size_t held = owned->data.capacity();
    std::lock_guard lock(state->mutex);
    if (state->idle.size() < state->max_idle && state->idle_bytes + held <= state->idle_room()) {
      state->idle_bytes += held;
      state->idle.push_back(std::move(owned));
    }
  });
}

std::size_t FramePool::idle_frames() const {
  std::lock_guard lock(state_->mutex);
  return state_->idle.size();
}

std::size_t FramePool::idle_bytes() const {
  std::lock_guard lock(state_->mutex);
  return state_->idle_bytes;
}

}  // namespace hdstream
