#include "protocol/frame.hpp"

namespace hdstream {

FramePool::FramePool(std::size_t max_idle_frames) : state_(std::make_shared<State>()) {
  state_->max_idle = max_idle_frames;
}

FramePtr FramePool::acquire(std::size_t bytes) {
  std::unique_ptr<Frame> frame;
  {
    std::lock_guard lock(state_->mutex);
    if (!state_->idle.empty()) {
      frame = std::move(state_->idle.back());
      state_->idle.pop_back();
    }
  }
  if (!frame) frame = std::make_unique<Frame>();
  *frame = Frame{.data = std::move(frame->data)};
  frame->data.resize(bytes);
  return FramePtr(frame.release(), [state = state_](Frame* released) {
    std::unique_ptr<Frame> owned(released);
    std::lock_guard lock(state->mutex);
    if (state->idle.size() < state->max_idle) state->idle.push_back(std::move(owned));
  });
}

std::size_t FramePool::idle_frames() const {
  std::lock_guard lock(state_->mutex);
  return state_->idle.size();
}

}  // namespace hdstream
