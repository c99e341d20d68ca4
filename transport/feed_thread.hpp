// The hand-off of a sender whose I/O blocks (libsrt's API, libavcodec): the strand queues
// frames with submit() and never waits; the feed's own thread takes them and reports when the
// feed has opened and when it has finished. Shared by SrtSender and SrtMessageSender.
//   FeedThread feed(strand, options.max_queued_frames);
//   co_await feed.start(weak_from_this(), [this] { run(); });   // true once run() said
//   opened(true) in run():  feed.opened(true);  for (FramePtr f; feed.take(f) ==
//   FeedThread::Take::frame;) ...
//              feed.finished(ok);
// The owner's destructor calls join() first, so the thread never outlives what it uses.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "common/async_event.hpp"
#include "protocol/frame.hpp"
#include "transport/transport.hpp"

namespace hdstream {

class FeedThread {
 public:
  FeedThread(asio::any_io_executor executor, std::size_t max_queued_frames);
  ~FeedThread() { join(); }
  FeedThread(const FeedThread&) = delete;
  FeedThread& operator=(const FeedThread&) = delete;

  // On the strand: starts `body` on the thread; resumes with what the body passed to opened().
  // `owner` guards the results posted back: once it is gone they are dropped.
  awaitable<bool> start(std::weak_ptr<void> owner, std::function<void()> body);
  // On the strand: queues a frame without waiting (dropped when the queue is full).
  SubmitResult submit(FramePtr frame);
  // On the strand: asks the thread to finish after the queued frames; resumes with what it
  // passed to finished(). `frames_sent` is handed to the thread (frames_sent()).
  awaitable<bool> close(std::uint64_t frames_sent);
  // Anywhere: the thread sees stopped() within its next bounded call.
  void stop();
  // Stops and waits for the thread (the owner's destructor, before its members go).
  void join();
  // On the strand, after the thread has ended on its own (the session broke, finished(false)):
  // starts `body` again for a new session, as start() did. Frames still queued from the broken
  // session are returned as a count (dropped: their moment has passed). false when stopped or
  // closing.
  awaitable<bool> restart(std::function<void()> body, std::size_t& discarded);

  // --- on the feed's thread ---
  enum class Take : std::uint8_t { frame = 1, idle, closing, stopped };
  // Waits up to 100 ms for a frame: frame, idle (nothing yet: do housekeeping), closing (close()
  // and the queue is empty) or stopped.
  Take take(FramePtr& frame);
  void opened(bool ok);
  void finished(bool ok);  // also stops accepting frames
  void stop_accepting() { accepting_ = false; }
  std::uint64_t frames_sent() const;
  bool stopped() const { return stopped_; }
  const std::atomic<bool>& stop_flag() const { return stopped_; }

 private:
  void report(AsyncEvent& event, bool& result, bool value);

  asio::any_io_executor executor_;
  std::size_t max_queued_frames_;
  std::weak_ptr<void> owner_;
  std::thread thread_;
  std::atomic<bool> stopped_{false};
  std::atomic<bool> accepting_{true};

  mutable std::mutex mutex_;  // guards queue_, closing_, frames_sent_
  std::condition_variable queue_changed_;
  std::deque<FramePtr> queue_;
  bool closing_ = false;
  std::uint64_t frames_sent_ = 0;

  // Results handed back to the strand.
  AsyncEvent opened_;
  AsyncEvent finished_;
  bool open_ok_ = false;
  bool finish_ok_ = false;
};

}  // namespace hdstream
