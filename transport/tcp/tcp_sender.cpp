#include "transport/tcp/tcp_sender.hpp"

#include <algorithm>

#include "common/clock.hpp"
#include "common/log.hpp"
#include "common/units.hpp"
#include "transport/message_io.hpp"
#include "transport/tcp_connect.hpp"

namespace hdstream {
namespace {
std::shared_ptr<spdlog::logger> log() {
  return logger("tcp");
}

}  // namespace

TcpSender::TcpSender(asio::any_io_executor executor, SenderOptions options,
                     StreamCounters& counters)
    : executor_(std::move(executor)),
      options_(std::move(options)),
      counters_(counters),
      link_(new_link()),
      queue_changed_(executor_),
      room_(executor_),
      writer_done_(executor_),
      reader_done_(executor_) {}

std::shared_ptr<TcpLink> TcpSender::new_link() {
  // The link lives no longer than this sender's loops, which hold the sender.
  return std::make_shared<TcpLink>(executor_, "tcp", fmt::format("stream {}", options_.stream_id),
                                   counters_, [this](const std::string& why) { failed(why); });
}

void TcpSender::failed(const std::string& why) {
  if (!broken_ && !stopped_) {
    log()->error("stream {} to {}: {}", options_.stream_id, options_.destination.to_string(), why);
  }
  broken_ = true;
  counters_.state.store(StreamState::failed, std::memory_order_relaxed);
  queue_changed_.notify();
  room_.notify();
}

awaitable<bool> TcpSender::open() {
  counters_.planned_bps.store(options_.hello.feed.bit_rate_bps, std::memory_order_relaxed);
  auto link = link_;
  // Named, not a temporary: GCC 12 destroys temporaries inside a co_await expression twice.
  const auto hello = encode_hello(options_.stream_id, options_.hello);
  auto outcome = co_await link->connect(options_, hello, options_.connect_patience, stopped_);
  if (!outcome.accepted) {
    if (outcome.error.empty()) {  // no connection (logged)
      counters_.state.store(StreamState::failed, std::memory_order_relaxed);
    } else {
      link->fail(outcome.error);
    }
    // No session loops run: the sender is broken, and reopen() may try again.
    broken_ = true;
    writer_done_.set();
    reader_done_.set();
    co_return false;
  }
  if (options_.key && !outcome.challenged) {
    log()->warn("stream {}: {} did not ask for the key: it accepts unauthenticated feeds",
                options_.stream_id, options_.destination.to_string());
  }
  counters_.far_end.receiver.set(std::move(outcome.receiver));
  counters_.state.store(StreamState::running, std::memory_order_relaxed);
  auto self = shared_from_this();
  asio::co_spawn(
      executor_, [self, link]() { return self->write_loop(link); }, asio::detached);
  asio::co_spawn(
      executor_, [self, link]() { return self->read_loop(link); }, asio::detached);
  asio::co_spawn(
      executor_, [self, link]() { return self->sample_tcp_info(link); }, asio::detached);
  co_return true;
}

SubmitResult TcpSender::submit(FramePtr frame) {
  if (broken_ || stopped_ || closing_) return SubmitResult::closed;
  if (queue_.size() >= options_.max_queued_frames) return SubmitResult::dropped;
  queue_.push_back(std::move(frame));
  queue_changed_.notify();
  return SubmitResult::queued;
}

awaitable<void> TcpSender::write_loop(std::shared_ptr<TcpLink> link) {
  while (!broken_ && !stopped_) {
    if (queue_.empty()) {
      if (closing_) break;
      co_await queue_changed_.wait_for_notify();
      continue;
    }
    const Frame& frame = *queue_.front();
    packetize(frame, options_.hello.chunk_bytes, chunks_);
    gather_.clear();
    for (const auto& chunk : chunks_) {
      gather_.emplace_back(chunk.header.data(), chunk.header.size());
      gather_.emplace_back(chunk.payload.data(), chunk.payload.size());
    }
    const error_code ec = co_await write_gathered(link->socket(), gather_);
    if (ec) {
      link->fail(fmt::format("connection lost: {}", ec.message()));
      break;
    }
    counters_.add_frame(frame.data.size(), wall_clock_ns());
    queue_.pop_front();
    room_.notify();
  }
  writer_done_.set();
  room_.notify();
}

awaitable<void> TcpSender::wait_for_room() {
  // Same strand as write_loop: nothing can pop between the check and the wait.
  while (queue_.size() >= options_.max_queued_frames && !broken_ && !stopped_ && !closing_) {
    co_await room_.wait_for_notify();
  }
}

awaitable<void> TcpSender::read_loop(std::shared_ptr<TcpLink> link) {
  // After the handshake the receiver only speaks to report health (feedback) or to close.
  co_await link->read_loop(nullptr);
  reader_done_.set();
}

awaitable<void> TcpSender::sample_tcp_info(std::shared_ptr<TcpLink> link) {
  asio::steady_timer timer(executor_);
  // Until the session ends; a read that fails once (the kernel busy) is not the end of it.
  while (link == link_ && link->socket().is_open()) {
    if (link->sample_tcp_info()) {
      counters_.rtt_ms.store(link->rtt_ms(), std::memory_order_relaxed);
      counters_.retransmits.store(link->retransmits(), std::memory_order_relaxed);
      counters_.segments_sent.store(link->segments_sent(), std::memory_order_relaxed);
    }
    timer.expires_after(250ms);
    error_code ignored;
    co_await timer.async_wait(nothrow(ignored));
  }
}

awaitable<bool> TcpSender::close(std::uint64_t frames_sent) {
  closing_ = true;
  link_->expect_close();
  queue_changed_.notify();
  co_await writer_done_.wait();
  if (broken_ || stopped_) co_return false;

  auto end = encode_end(options_.stream_id, End{frames_sent});
  auto link = link_;
  tcp::socket& socket = link->socket();
  error_code ec;
  co_await asio::async_write(socket, asio::buffer(end), nothrow(ec));
  if (ec) {
    fail(fmt::format("connection lost before END: {}", ec.message()));
    co_return false;
  }
  boost::system::error_code ignored;
  socket.shutdown(tcp::socket::shutdown_send, ignored);
  // The receiver closes once it has everything; wait for that, but not forever.
  asio::steady_timer watchdog(executor_, end_confirmation_patience(socket, options_));
  watchdog.async_wait([self = shared_from_this()](boost::system::error_code wait_ec) {
    if (!wait_ec) self->fail("receiver did not confirm the end of the feed");
  });
  co_await reader_done_.wait();
  watchdog.cancel();
  link->close();
  if (broken_) co_return false;
  counters_.state.store(StreamState::finished, std::memory_order_relaxed);
  co_return true;
}

awaitable<bool> TcpSender::reopen(std::uint64_t first_frame_seq) {
  if (stopped_ || closing_ || !broken_ || options_.reconnect_patience.count() == 0) co_return false;
  // The broken session's loops end on the closed socket; wait for them before reusing state.
  co_await writer_done_.wait();
  co_await reader_done_.wait();
  counters_.drops.fetch_add(queue_.size(), std::memory_order_relaxed);
  queue_.clear();
  options_.hello.first_frame_seq = first_frame_seq;
  log()->warn("stream {}: reconnecting to {} to resume at frame {} (retrying for {})",
              options_.stream_id, options_.destination.to_string(), first_frame_seq,
              format_duration(options_.reconnect_patience));
  // A refusal (the receiver has not noticed the old session is gone yet: stream busy) is
  // retried too, within the same patience; soon at first (after a silent cut the receiver's own
  // stall timeout fires a few hundred ms after ours), then once a second.
  const auto deadline = deadline_after(options_.reconnect_patience);
  asio::steady_timer backoff(executor_);
  std::chrono::milliseconds step(100);
  while (!stopped_) {
    link_->close();
    link_ = new_link();
    broken_ = false;
    writer_done_ = AsyncEvent(executor_);  // set by this attempt's loops, or its failure
    reader_done_ = AsyncEvent(executor_);
    counters_.state.store(StreamState::waiting, std::memory_order_relaxed);
    if (co_await open()) {
      log()->info("stream {}: resumed at frame {}", options_.stream_id, first_frame_seq);
      co_return true;
    }
    if (std::chrono::steady_clock::now() + step > deadline) break;
    backoff.expires_after(step);
    error_code ignored;
    co_await backoff.async_wait(nothrow(ignored));
    step = std::min(2 * step, std::chrono::milliseconds(1000));
  }
  broken_ = true;
  counters_.state.store(StreamState::failed, std::memory_order_relaxed);
  co_return false;  // the last attempt's failure has set writer_done_ and reader_done_
}

void TcpSender::stop() {
  asio::post(executor_, [self = shared_from_this()] {
    self->stopped_ = true;
    self->link_->stop();
    self->queue_changed_.notify();
    self->room_.notify();
  });
}

}  // namespace hdstream
