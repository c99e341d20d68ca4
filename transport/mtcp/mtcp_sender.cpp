#include "transport/mtcp/mtcp_sender.hpp"

#include <sys/socket.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

#include "common/clock.hpp"
#include "common/log.hpp"
#include "common/units.hpp"
#include "transport/message_io.hpp"
#include "transport/mtcp/mtcp_scheduler.hpp"

namespace hdstream {
namespace {
std::shared_ptr<spdlog::logger> log() {
  return logger("mtcp");
}

std::uint64_t random_session_id() {
  std::random_device device;
  return (std::uint64_t{device()} << 32) ^ device() ^ static_cast<std::uint64_t>(wall_clock_ns());
}
}  // namespace

MultiTcpSender::MultiTcpSender(asio::any_io_executor executor, SenderOptions options,
                               StreamCounters& counters)
    : executor_(std::move(executor)),
      options_(std::move(options)),
      counters_(counters),
      session_id_(random_session_id()),
      window_changed_(executor_),
      readers_done_(executor_) {
  // sender_options() (transport/feed_request.hpp) plans these; anything else is a caller's bug.
  const std::size_t k = options_.hello.connections;
  if (options_.hello.transport != TransportKind::mtcp || k < 1 || k > kMaxSubconnections) {
    throw std::invalid_argument("MultiTcpSender: options not planned by sender_options()");
  }
  options_.hello.session_id = session_id_;
  for (std::size_t i = 0; i < k; ++i) {
    auto sub = std::make_unique<Subconnection>(executor_);
    sub->index = static_cast<std::uint8_t>(i);
    sub->link = new_link(*sub);
    subs_.push_back(std::move(sub));
  }
  loads_.resize(k);
  // Room per sub-connection: a few chunks beyond what TCP_NOTSENT_LOWAT keeps in the kernel, so
  // a chunk is bound to a connection only shortly before it can really leave.
  room_bytes_ = 8 * (std::uint64_t{options_.hello.chunk_bytes} + kHeaderBytes);
  window_ = make_window();
}

std::unique_ptr<MtcpWindow> MultiTcpSender::make_window() {
  // The resend window covers the send queue plus what is in flight for two round trips.
  const double fps = options_.hello.feed.frames_per_second();
  const double rtt_s = std::chrono::duration<double>(options_.expected_rtt).count();
  const std::size_t window_frames = std::min(
      options_.max_queued_frames + 2 + static_cast<std::size_t>(std::ceil(2 * rtt_s * fps)),
      mtcp_window_frames(options_.hello.latency_budget_ms, fps));
  // The window lives no longer than this sender: `this` in the callback is safe.
  return std::make_unique<MtcpWindow>(window_frames, subs_.size(), options_.hello.first_frame_seq,
                                      [this](const Frame& frame) {
                                        counters_.add_frame(frame.data.size(), wall_clock_ns());
                                        window_changed_.notify();
                                      });
}

MultiTcpSender::~MultiTcpSender() = default;

std::string MultiTcpSender::label(const Subconnection& sub) const {
  return fmt::format("stream {} sub-connection {}/{}", options_.stream_id, sub.index, subs_.size());
}

std::shared_ptr<TcpLink> MultiTcpSender::new_link(Subconnection& sub) {
  // Links live no longer than the coroutines that hold this sender.
  return std::make_shared<TcpLink>(executor_, "mtcp", label(sub), counters_,
                                   [this, &sub, generation = sub.generation + 1](
                                       const std::string& why) { broken(sub, generation, why); });
}

std::vector<std::byte> MultiTcpSender::hello_for(const Subconnection& sub) const {
  Hello hello = options_.hello;
  hello.subconnection = sub.index;
  // A receiver that still has this session ignores first_frame_seq: a re-established
  // sub-connection's chunks may belong to any frame in the window. A receiver that restarted
  // (kill -9, reboot) starts a new session here: it must not count the frames its predecessor
  // delivered as missing, so it starts at the first frame not yet delivered.
  hello.first_frame_seq = std::max(hello.first_frame_seq, window_->delivered_seq());
  return encode_hello(options_.stream_id, hello);
}

void MultiTcpSender::fail(std::string_view why) {
  if (!broken_ && !stopped_)
    log()->error("stream {} to {}: {}", options_.stream_id, options_.destination.to_string(), why);
  broken_ = true;
  counters_.state.store(StreamState::failed, std::memory_order_relaxed);
  for (auto& sub : subs_) {
    sub->link->close();
    sub->wake.notify();
  }
  window_changed_.notify();
  readers_done_.set();
}

bool MultiTcpSender::any_running() const {
  return std::any_of(subs_.begin(), subs_.end(),
                     [](const auto& sub) { return sub->state == SubState::running; });
}

awaitable<bool> MultiTcpSender::establish(Subconnection& sub, bool first) {
  sub.link = new_link(sub);
  auto link = sub.link;
  // The first connection gets the whole patience; a reconnection tries once per backoff step.
  const auto patience = first ? options_.connect_patience : std::chrono::nanoseconds(0);
  const auto hello = hello_for(sub);
  auto outcome = co_await link->connect(options_, hello, patience, stopped_);
  if (!outcome.accepted) {
    // Empty: no connection (logged). A refusal ends the feed; a lost handshake is retried.
    if (!outcome.error.empty() && (first || outcome.error.starts_with("receiver refused"))) {
      fail(outcome.error);
    }
    co_return false;
  }
  if (stopped_ || broken_) co_return false;
  counters_.far_end.receiver.set(std::move(outcome.receiver));
  start_io(sub);
  co_return true;
}

void MultiTcpSender::start_io(Subconnection& sub) {
  if (const std::int64_t outage_ns = counters_.outage.end(
          wall_clock_ns(), std::chrono::milliseconds(options_.hello.latency_budget_ms));
      outage_ns > 0) {
    log()->info("stream {}: the path is back after {:.1f} s", options_.stream_id,
                static_cast<double>(outage_ns) / 1e9);
  }
  sub.state = SubState::running;
  ++sub.generation;
  window_->reopen(sub.index);
  counters_.striped.subconnections[sub.index].state.store(StreamState::running,
                                                       std::memory_order_relaxed);
  ++readers_open_;
  auto self = shared_from_this();
  const auto generation = sub.generation;
  Subconnection* raw = &sub;
  asio::co_spawn(
      executor_, [self, raw, generation] { return self->write_loop(*raw, generation); },
      asio::detached);
  asio::co_spawn(
      executor_, [self, raw, generation] { return self->read_loop(*raw, generation); },
      asio::detached);
  schedule();
}

awaitable<bool> MultiTcpSender::open() {
  counters_.planned_bps.store(options_.hello.feed.bit_rate_bps, std::memory_order_relaxed);
  for (auto& sub : subs_) {
    counters_.striped.subconnections[sub->index].state.store(StreamState::waiting,
                                                          std::memory_order_relaxed);
  }
  for (auto& sub : subs_) {
    if (!co_await establish(*sub, true)) {
      fail(fmt::format("could not open {} of {} sub-connections", sub->index, subs_.size()));
      co_return false;
    }
  }
  opened_ = true;
  log()->info("stream {}: {} sub-connections to {} (session {:016x})", options_.stream_id,
              subs_.size(), options_.destination.to_string(), session_id_);
  counters_.state.store(StreamState::running, std::memory_order_relaxed);
  auto self = shared_from_this();
  asio::co_spawn(
      executor_, [self] { return self->sample_tcp_info(); }, asio::detached);
  co_return true;
}

awaitable<bool> MultiTcpSender::reopen(std::uint64_t first_frame_seq) {
  if (opened_ || stopped_ || closing_ || options_.reconnect_patience.count() == 0) co_return false;
  // Nothing was sent: a new session, its window starting at `first_frame_seq`, whose first
  // connection is tried for --reconnect's patience, as a broken session's would be.
  options_.connect_patience = options_.reconnect_patience;
  log()->warn("stream {}: connecting to {} again, to start at frame {} (retrying for {})",
              options_.stream_id, options_.destination.to_string(), first_frame_seq,
              format_duration(options_.connect_patience));
  broken_ = false;
  readers_done_.reset();
  session_id_ = random_session_id();
  options_.hello.session_id = session_id_;
  options_.hello.first_frame_seq = first_frame_seq;
  window_ = make_window();
  co_return co_await open();
}

SubmitResult MultiTcpSender::submit(FramePtr frame) {
  if (broken_ || stopped_ || closing_) return SubmitResult::closed;
  if (!window_->submit(std::move(frame), options_.hello.chunk_bytes)) return SubmitResult::dropped;
  schedule();
  return SubmitResult::queued;
}

void MultiTcpSender::schedule() {
  if (!window_->has_pending()) return;
  for (std::size_t i = 0; i < subs_.size(); ++i) {
    const auto& sub = *subs_[i];
    const bool usable = sub.state == SubState::running;
    loads_[i] = SubconnectionLoad{
        usable, 0, usable ? kernel_unsent_bytes(sub.link->socket().native_handle()) : 0};
  }
  const std::uint32_t given = window_->assign(loads_, room_bytes_);
  for (std::size_t i = 0; i < subs_.size(); ++i) {
    if (given & (std::uint32_t{1} << i)) subs_[i]->wake.notify();
  }
}

awaitable<void> MultiTcpSender::write_loop(Subconnection& sub, std::uint64_t generation) {
  auto link = sub.link;  // this generation's connection, even after a reconnection
  auto& counters = counters_.striped.subconnections[sub.index];
  while (!stopped_ && !broken_ && !ended_ && sub.generation == generation) {
    if (!window_->has_unwritten(sub.index)) {
      co_await sub.wake.wait_for_notify();
      continue;
    }
    sub.gather.clear();
    const std::uint64_t payload_bytes =
        window_->take_unwritten(sub.index, 32, [&](const EncodedChunk& chunk) {
          sub.gather.emplace_back(chunk.header.data(), chunk.header.size());
          sub.gather.emplace_back(chunk.payload.data(), chunk.payload.size());
        });
    const error_code ec = co_await write_gathered(link->socket(), sub.gather);
    if (sub.generation != generation) break;  // broke meanwhile; its chunks moved on already
    if (ec) {
      link->fail(fmt::format("write failed: {}", ec.message()));
      break;
    }
    counters.bytes.fetch_add(payload_bytes, std::memory_order_relaxed);
    schedule();
  }
}

awaitable<void> MultiTcpSender::read_loop(Subconnection& sub, std::uint64_t generation) {
  auto link = sub.link;
  co_await link->read_loop(
      [this, &sub, generation](const MessageHeader& header, std::span<const std::byte> body,
                               bool checksum_ok) -> std::optional<std::string> {
        if (header.type != MessageType::ack || sub.generation != generation) return std::nullopt;
        auto ack = checksum_ok ? decode_ack(body) : std::nullopt;
        if (!ack || ack->subconnection != sub.index) return "malformed ACK from the receiver";
        return on_ack(sub, *ack);
      });
  if (--readers_open_ == 0 && ended_) readers_done_.set();
}

std::optional<std::string> MultiTcpSender::on_ack(Subconnection& sub, const Ack& ack) {
  // A receiver that acknowledges what was never written would make the window drop chunks
  // unsent and count their frames as sent: refused, a protocol error on this sub-connection.
  if (auto refused = window_->on_ack(sub.index, ack)) return refused;
  schedule();
  return std::nullopt;
}

void MultiTcpSender::broken(Subconnection& sub, std::uint64_t generation, const std::string& why) {
  if (sub.generation != generation || sub.state != SubState::running) return;
  sub.state = SubState::down;
  ++sub.generation;
  sub.link->close();
  auto& counters = counters_.striped.subconnections[sub.index];
  counters.state.store(StreamState::waiting, std::memory_order_relaxed);
  sub.retransmits_base += sub.retransmits_now;
  sub.retransmits_now = 0;
  sub.segments_base += sub.segments_now;
  sub.segments_now = 0;
  if (stopped_ || broken_) return;
  // Everything not acknowledged goes back to the front of the queue, in order, for the others.
  const std::size_t resent = window_->requeue(sub.index);
  resent_chunks_ += resent;
  counters_.striped.resent_chunks.store(resent_chunks_, std::memory_order_relaxed);
  counters_.striped.present.store(true, std::memory_order_relaxed);
  log()->warn("{}: {}; re-sending its {} unacknowledged chunks on the others, reconnecting",
              label(sub), why, resent);
  if (!any_running()) {
    counters_.outage.begin(wall_clock_ns());
    log()->warn("stream {}: every sub-connection lost; reconnecting for {}", options_.stream_id,
                format_duration(options_.reconnect_patience));
  }
  sub.wake.notify();
  if (!sub.reconnecting && !ended_) {
    auto self = shared_from_this();
    Subconnection* raw = &sub;
    asio::co_spawn(
        executor_, [self, raw] { return self->reconnect(*raw); }, asio::detached);
  }
  schedule();
}

awaitable<void> MultiTcpSender::reconnect(Subconnection& sub) {
  sub.reconnecting = true;
  asio::steady_timer timer(executor_);
  auto backoff = std::chrono::milliseconds(20);
  const auto lost_at = std::chrono::steady_clock::now();
  while (!stopped_ && !broken_ && !ended_) {
    timer.expires_after(backoff);
    error_code ignored;
    co_await timer.async_wait(nothrow(ignored));
    if (stopped_ || broken_ || ended_) break;
    if (co_await establish(sub, false)) {
      counters_.striped.subconnections[sub.index].reconnects.fetch_add(1, std::memory_order_relaxed);
      log()->info("{}: re-established", label(sub));
      break;
    }
    if (!any_running() &&
        std::chrono::steady_clock::now() - lost_at >= options_.reconnect_patience) {
      fail(fmt::format("every sub-connection lost for more than {}",
                       format_duration(options_.reconnect_patience)));
      break;
    }
    backoff = std::min(backoff * 2, std::chrono::milliseconds(1000));
  }
  sub.reconnecting = false;
}

awaitable<void> MultiTcpSender::sample_tcp_info() {
  asio::steady_timer timer(executor_);
  auto self = shared_from_this();  // outlives close() by at most one tick
  while (!stopped_ && !broken_ && !(ended_ && readers_open_ == 0)) {
    double rtt_sum = 0;
    std::size_t rtt_count = 0;
    std::uint64_t retransmits = resent_chunks_;
    std::uint64_t segments = 0;
    for (auto& sub : subs_) {
      auto& counters = counters_.striped.subconnections[sub->index];
      if (sub->state == SubState::running && sub->link->sample_tcp_info()) {
        sub->retransmits_now = sub->link->retransmits();
        sub->segments_now = sub->link->segments_sent();
        counters.rtt_ms.store(sub->link->rtt_ms(), std::memory_order_relaxed);
        rtt_sum += sub->link->rtt_ms();
        ++rtt_count;
      }
      const std::uint64_t total = sub->retransmits_base + sub->retransmits_now;
      counters.retransmits.store(total, std::memory_order_relaxed);
      retransmits += total;
      segments += sub->segments_base + sub->segments_now;
    }
    if (rtt_count > 0) counters_.rtt_ms.store(rtt_sum / rtt_count, std::memory_order_relaxed);
    counters_.retransmits.store(retransmits, std::memory_order_relaxed);
    counters_.segments_sent.store(segments, std::memory_order_relaxed);
    timer.expires_after(250ms);
    error_code ignored;
    co_await timer.async_wait(nothrow(ignored));
  }
}

awaitable<bool> MultiTcpSender::close(std::uint64_t frames_sent) {
  closing_ = true;
  // Every chunk acknowledged first: END on one connection must not overtake chunks on others.
  asio::steady_timer timer(executor_);
  std::size_t last_window = window_->frames();
  auto last_progress = std::chrono::steady_clock::now();
  while (!window_->empty() && !broken_ && !stopped_) {
    timer.expires_after(100ms);
    auto self = shared_from_this();
    timer.async_wait([self](boost::system::error_code ec) {
      if (!ec) self->window_changed_.notify();
    });
    co_await window_changed_.wait_for_notify();
    timer.cancel();
    if (window_->frames() != last_window) {
      last_window = window_->frames();
      last_progress = std::chrono::steady_clock::now();
    } else if (std::chrono::steady_clock::now() - last_progress > options_.handshake_timeout) {
      fail(fmt::format("receiver acknowledged nothing for {}; {} frames unconfirmed",
                       format_duration(options_.handshake_timeout), window_->frames()));
    }
  }
  if (broken_ || stopped_) co_return false;

  auto end = encode_end(options_.stream_id, End{frames_sent});
  Subconnection* carrier = nullptr;
  for (auto& sub : subs_) {
    if (sub->state != SubState::running) continue;
    auto link = sub->link;
    error_code ec;
    co_await asio::async_write(link->socket(), asio::buffer(end), nothrow(ec));
    if (!ec) {
      carrier = sub.get();
      break;
    }
  }
  if (!carrier) {
    fail("no sub-connection left to send END on");
    co_return false;
  }
  ended_ = true;
  for (auto& sub : subs_) {
    sub->link->expect_close();  // the receiver's close is its confirmation
    sub->wake.notify();         // writers are done
  }
  // Only END's connection half-closes: the others stay quiet until the receiver, having read
  // END, closes them all (an early FIN there would look like a break).
  boost::system::error_code ignored;
  carrier->link->socket().shutdown(tcp::socket::shutdown_send, ignored);
  // The receiver closes every sub-connection once it has everything; wait, but not forever.
  asio::steady_timer watchdog(executor_, options_.handshake_timeout);
  watchdog.async_wait([self = shared_from_this()](boost::system::error_code ec) {
    if (!ec) self->fail("receiver did not confirm the end of the feed");
  });
  if (readers_open_ > 0) co_await readers_done_.wait();
  watchdog.cancel();
  for (auto& sub : subs_) {
    sub->link->close();
    sub->state = SubState::down;
    counters_.striped.subconnections[sub->index].state.store(StreamState::finished,
                                                          std::memory_order_relaxed);
  }
  if (broken_) co_return false;
  counters_.state.store(StreamState::finished, std::memory_order_relaxed);
  co_return true;
}

void MultiTcpSender::stop() {
  asio::post(executor_, [self = shared_from_this()] {
    self->stopped_ = true;
    for (auto& sub : self->subs_) {
      sub->link->close();
      sub->wake.notify();
    }
    self->window_changed_.notify();
    self->readers_done_.set();
  });
}

void MultiTcpSender::break_subconnection(std::size_t index) {
  asio::post(executor_, [self = shared_from_this(), index] {
    if (index >= self->subs_.size()) return;
    auto& sub = *self->subs_[index];
    if (sub.state != SubState::running) return;
    // Linger 0 turns the close into a reset; shutdown makes our own reader see the break the
    // way it sees a path failure, through its pending read.
    const int fd = sub.link->socket().native_handle();
    linger reset{1, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
    ::shutdown(fd, SHUT_RDWR);
  });
}

}  // namespace hdstream
