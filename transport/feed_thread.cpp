#include "transport/feed_thread.hpp"

namespace hdstream {

FeedThread::FeedThread(asio::any_io_executor executor, std::size_t max_queued_frames)
    : executor_(std::move(executor)),
      max_queued_frames_(max_queued_frames),
      opened_(executor_),
      finished_(executor_) {}

awaitable<bool> FeedThread::start(std::weak_ptr<void> owner, std::function<void()> body) {
  owner_ = std::move(owner);
  thread_ = std::thread(std::move(body));
  co_await opened_.wait();
  co_return open_ok_;
}

void FeedThread::report(AsyncEvent& event, bool& result, bool value) {
  // Weak: the owner may be going away (its destructor is joining this thread).
  asio::post(executor_, [owner = owner_, &event, &result, value] {
    if (auto alive = owner.lock()) {
      result = value;
      event.set();
    }
  });
}

void FeedThread::opened(bool ok) {
  report(opened_, open_ok_, ok);
}

void FeedThread::finished(bool ok) {
  accepting_ = false;
  report(finished_, finish_ok_, ok);
}

SubmitResult FeedThread::submit(FramePtr frame) {
  if (!accepting_ || stopped_) return SubmitResult::closed;
  {
    std::lock_guard lock(mutex_);
    if (closing_) return SubmitResult::closed;
    if (queue_.size() >= max_queued_frames_) return SubmitResult::dropped;
    queue_.push_back(std::move(frame));
  }
  queue_changed_.notify_one();
  return SubmitResult::queued;
}

FeedThread::Take FeedThread::take(FramePtr& frame) {
  std::unique_lock lock(mutex_);
  queue_changed_.wait_for(lock, std::chrono::milliseconds(100),
                          [&] { return stopped_ || closing_ || !queue_.empty(); });
  if (stopped_) return Take::stopped;
  if (queue_.empty()) return closing_ ? Take::closing : Take::idle;
  frame = std::move(queue_.front());
  queue_.pop_front();
  return Take::frame;
}

std::uint64_t FeedThread::frames_sent() const {
  std::lock_guard lock(mutex_);
  return frames_sent_;
}

awaitable<bool> FeedThread::close(std::uint64_t frames_sent) {
  {
    std::lock_guard lock(mutex_);
    closing_ = true;
    frames_sent_ = frames_sent;
  }
  queue_changed_.notify_one();
  if (!thread_.joinable()) co_return false;
  co_await finished_.wait();
  co_return finish_ok_;
}

awaitable<bool> FeedThread::restart(std::function<void()> body, std::size_t& discarded) {
  discarded = 0;
  if (stopped_) co_return false;
  // The broken session's thread has reported finished(false) and is returning: not a stop().
  if (thread_.joinable()) thread_.join();
  // Its report is queued on this strand: let it land before the events are replaced.
  co_await finished_.wait();
  {
    std::lock_guard lock(mutex_);
    if (closing_) co_return false;
    discarded = queue_.size();
    queue_.clear();
  }
  opened_ = AsyncEvent(executor_);
  finished_ = AsyncEvent(executor_);
  open_ok_ = finish_ok_ = false;
  accepting_ = true;
  thread_ = std::thread(std::move(body));
  co_await opened_.wait();
  co_return open_ok_;
}

void FeedThread::stop() {
  stopped_ = true;
  queue_changed_.notify_all();
}

void FeedThread::join() {
  stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace hdstream
