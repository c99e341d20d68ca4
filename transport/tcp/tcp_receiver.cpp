#include "transport/tcp/tcp_receiver.hpp"

#include <memory>

#include "common/async_event.hpp"
#include "common/clock.hpp"
#include "common/log.hpp"
#include "common/provenance.hpp"
#include "common/units.hpp"
#include "protocol/reassembler.hpp"
#include "transport/capacity_probe.hpp"
#include "transport/feedback.hpp"
#include "transport/message_io.hpp"
#include "transport/reassembly_publisher.hpp"
#include "transport/server_handshake.hpp"

namespace hdstream {
namespace {
std::shared_ptr<spdlog::logger> log() {
  return logger("tcp");
}

}  // namespace

// One accepted connection: handshake, then chunks until END or an error.
class TcpReceiver::Session : public TcpSession, public std::enable_shared_from_this<Session> {
 public:
  Session(std::shared_ptr<TcpReceiver> owner, tcp::socket socket)
      : owner_(std::move(owner)),
        socket_(std::move(socket)),
        peer_(peer_name(socket_)),
        feedback_timer_(socket_.get_executor()),
        feedback_done_(socket_.get_executor()) {}

  awaitable<void> run() override;
  void close() override {
    asio::post(socket_.get_executor(), [self = shared_from_this()] {
      boost::system::error_code ignored;
      self->socket_.close(ignored);
    });
  }

 private:
  awaitable<std::optional<Hello>> handshake();
  awaitable<bool> receive();
  void tune_receive_buffer(const Hello& hello);
  void sample_tcp_info(StreamCounters& counters);
  awaitable<void> feedback_loop();
  awaitable<void> finish_feedback(bool clean);

  std::shared_ptr<TcpReceiver> owner_;
  tcp::socket socket_;
  std::string peer_;
  std::uint16_t stream_id_ = 0;
  Hello hello_;  // once accepted
  std::vector<std::byte> body_;
  std::vector<std::byte> scratch_;
  std::int64_t next_info_ns_ = 0;
  ReassemblerConfig reassembly_;  // bounds from the HELLO
  // Once accepted: its place, the memory the bounds may hold, its counters and consumer.
  std::optional<Admission::Session> admitted_;
  // Far-end feedback: the only writer on the socket after the handshake.
  asio::steady_timer feedback_timer_;
  AsyncEvent feedback_done_;
  FeedbackMeter feedback_meter_;
  bool session_over_ = false;
  bool ended_cleanly_ = false;
  std::uint64_t next_seq_ = 0;  // after receive(): frames below were delivered or counted
};

awaitable<void> TcpReceiver::Session::feedback_loop() {
  StreamCounters& counters = admitted_->counters();
  for (;;) {
    if (!session_over_) {
      feedback_timer_.expires_after(kFeedbackInterval);
      error_code ignored;
      co_await feedback_timer_.async_wait(nothrow(ignored));
    }
    const bool last = session_over_;
    // After END one last report carries the final counts; after an error nobody listens.
    if (last && !ended_cleanly_) break;
    auto message =
        encode_feedback(stream_id_, feedback_meter_.take(counters, wall_clock_ns()), last);
    error_code ec;
    co_await asio::async_write(socket_, asio::buffer(message), nothrow(ec));
    if (ec || last) break;
  }
  feedback_done_.set();
}

awaitable<void> TcpReceiver::Session::finish_feedback(bool clean) {
  session_over_ = true;
  ended_cleanly_ = clean;
  feedback_timer_.cancel();
  // A sender that stopped reading cannot hold the session open: the watchdog closes it.
  asio::steady_timer watchdog(socket_.get_executor(), owner_->options_.handshake_timeout);
  watchdog.async_wait([self = shared_from_this()](boost::system::error_code ec) {
    if (!ec) {
      boost::system::error_code ignored;
      self->socket_.close(ignored);
    }
  });
  co_await feedback_done_.wait();
  watchdog.cancel();
}

awaitable<std::optional<Hello>> TcpReceiver::Session::handshake() {
  auto intake = co_await read_hello(socket_, owner_->options_.handshake_timeout, peer_,
                                    TransportKind::tcp, "tcp", owner_->options_.key);
  // Refusal reasons are built before co_await: GCC 12 destroys temporaries inside a co_await
  // expression twice.
  const std::uint16_t stream_id = intake.stream_id;
  if (!intake.hello) {
    if (intake.reply) {
      co_await send_hello_ack(socket_, stream_id, intake.status, std::move(intake.reason), peer_,
                              "tcp");
    }
    co_return std::nullopt;
  }
  reassembly_ = reassembler_config(*intake.hello);
  reassembly_.max_frames_in_flight = owner_->options_.max_frames_in_flight;
  auto admitted =
      owner_->admission_.admit(stream_id, *intake.hello, reassembly_, /*readers=*/1, peer_);
  if (auto* refused = std::get_if<Admission::Refusal>(&admitted)) {
    const RefusalLog logging = refused->logged        ? RefusalLog::none
                               : owner_->options_.key ? RefusalLog::proven
                                                      : RefusalLog::stranger;
    co_await send_hello_ack(socket_, stream_id, refused->status, std::move(refused->reason), peer_,
                            "tcp", logging);
    co_return std::nullopt;
  }
  admitted_.emplace(std::move(std::get<Admission::Session>(admitted)));
  stream_id_ = stream_id;
  hello_ = *intake.hello;
  if (!co_await send_hello_ack(socket_, stream_id, AckStatus::accepted, receiver_identity(), peer_,
                               "tcp")) {
    admitted_.reset();
    co_return std::nullopt;
  }
  established();
  co_return intake.hello;
}

void TcpReceiver::Session::tune_receive_buffer(const Hello& hello) {
  const auto limits = read_kernel_limits(BufferDirection::receive);
  const auto rtt = std::chrono::microseconds(hello.expected_rtt_us);
  // What the HELLO announces sizes the buffer, up to the stream's share of --max-memory: a
  // stranger's HELLO of 100 Gbps over a 10 s RTT gets no gigabyte of kernel memory.
  const std::uint64_t share = admitted_->memory().budget().limit_bytes() /
                              std::max<std::size_t>(1, owner_->options_.streams);
  const auto plan = plan_buffer(hello.feed.bit_rate_bps, rtt, limits, share);
  const std::uint64_t effective =
      apply_buffer(socket_.native_handle(), BufferDirection::receive, plan);
  if (plan.set_bytes && effective < plan.need_bytes) {
    log()->warn("stream {}: receive buffer capped at {} bytes; {} x {} needs {}. Fix: {}",
                stream_id_, effective, format_rate(static_cast<double>(hello.feed.bit_rate_bps)),
                format_duration(rtt), plan.need_bytes,
                sysctl_fix(BufferDirection::receive, plan.need_bytes, limits));
  }
}

void TcpReceiver::Session::sample_tcp_info(StreamCounters& counters) {
  const std::int64_t now = wall_clock_ns();
  if (now < next_info_ns_) return;
  next_info_ns_ = now + 250'000'000;
  if (auto info = read_tcp_info(socket_.native_handle())) {
    counters.rtt_ms.store(info->rtt_ms, std::memory_order_relaxed);
  }
}

awaitable<bool> TcpReceiver::Session::receive() {
  StreamCounters& counters = admitted_->counters();
  // One in-order connection: a gap is final (latency budget 0). On the heap: with the settled
  // frames it remembers it would take the coroutine frame past Asio's small-block size, which
  // the ASan build (GCC 12, Boost 1.74) refuses (-Wmismatched-new-delete; message_io.hpp's
  // MessageReader keeps its slots on the heap for the same reason).
  const auto reassembler_on_heap =
      std::make_unique<Reassembler>(stream_id_, reassembly_, admitted_->memory().pool());
  Reassembler& reassembler = *reassembler_on_heap;
  ReassemblyPublisher publisher(log(), stream_id_);

  auto deliver = [&](std::int64_t now) {
    publisher.publish(reassembler.counters(), counters);
    deliver_ready_frames(reassembler, now, admitted_->capacity_probe(), admitted_->consumer(),
                         stream_id_, publisher, counters);
  };

  // A failed read ends the session at once: reading a broken socket again can wait forever
  // (Asio's epoll reactor waits for a readiness edge that a reset connection never raises).
  auto connection_lost = [&](const error_code& ec) {
    if (ec != asio::error::operation_aborted) {
      log()->warn("stream {} from {}: connection lost before END: {}", stream_id_, peer_,
                  ec.message());
    }
  };
  MessageReader reader;
  Reassembler::Lookahead ahead;
  for (;;) {
    auto read = co_await reader.read_header(socket_);
    if (read.error) {
      if (read.detail != HeaderError::none) {
        log()->warn("stream {} from {}: {}; closing the session", stream_id_, peer_,
                    to_string(read.detail));
      } else {
        connection_lost(read.error);
      }
      break;
    }
    const MessageHeader& header = read.header;
    if (header.type == MessageType::chunk) {
      auto slot = reassembler.begin_chunk(header, wall_clock_ns());
      if (slot.result == ChunkResult::too_large) {
        admitted_->memory().frame_too_large(peer_, stream_id_, header, reassembly_);
        break;
      }
      error_code ec;
      if (slot.result == ChunkResult::accepted) {
        reassembler.chunks_ahead(header, MessageReader::kMaxChunksAhead, ahead);
        ec = co_await reader.read_payload(socket_, slot.destination, &ahead);
        if (!ec) reassembler.commit_chunk(header, wall_clock_ns());
      } else {
        ec = co_await reader.discard_payload(socket_, header.payload_bytes, scratch_);
      }
      if (ec == boost::system::errc::protocol_error) {
        log()->warn(
            "stream {} from {}: chunk {} of frame {} was not where its frame's order put "
            "it ({}); closing the session",
            stream_id_, peer_, header.chunk_index, header.frame_seq,
            slot.result == ChunkResult::accepted ? "another place" : to_string(slot.result));
        break;
      }
      if (ec) {
        connection_lost(ec);
        break;
      }
      const std::int64_t now = wall_clock_ns();
      deliver(now);
      sample_tcp_info(counters);
      continue;
    }
    auto body_read = co_await read_control_body(socket_, header, body_);
    if (body_read.error) {
      connection_lost(body_read.error);
      break;
    }
    if (header.type == MessageType::end) {
      auto end = body_read.checksum_ok ? decode_end(body_) : std::nullopt;
      if (!end) {
        log()->warn("stream {} from {}: malformed END; closing the session", stream_id_, peer_);
        break;
      }
      reassembler.finish(end->frames_sent);
      deliver(wall_clock_ns());
      next_seq_ = reassembler.next_seq();
      co_return true;
    }
    log()->warn("stream {} from {}: unexpected message type {}; closing the session", stream_id_,
                peer_, static_cast<int>(header.type));
    break;
  }
  reassembler.abandon();
  deliver(wall_clock_ns());
  next_seq_ = reassembler.next_seq();
  co_return false;
}

awaitable<void> TcpReceiver::Session::run() {
  auto hello = co_await handshake();
  if (!hello) co_return;
  tune_receive_buffer(*hello);
  // A silent path breaks the session once the sender has been silent this long.
  set_stall_timeout(socket_.native_handle(),
                    stall_timeout(std::chrono::microseconds(hello->expected_rtt_us)));
  admitted_->started(*hello, "over tcp");
  asio::co_spawn(
      socket_.get_executor(), [self = shared_from_this()] { return self->feedback_loop(); },
      asio::detached);

  const bool clean = co_await receive();
  co_await finish_feedback(clean);

  admitted_->ended(clean, next_seq_);
  boost::system::error_code ignored;
  socket_.shutdown(tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
  admitted_.reset();  // the stream is free for its next session
}

TcpReceiver::TcpReceiver(asio::io_context& context, ReceiverOptions options, StatsRegistry& stats,
                         FrameConsumer& consumer)
    : options_(std::move(options)),
      admission_(options_, stats, consumer, 4 * options_.streams + 8, "tcp"),
      listener_(
          std::make_shared<TcpListener>(context, "tcp", feed_listener_options(options_.streams))) {}

TcpReceiver::~TcpReceiver() = default;

void TcpReceiver::start() {
  listen_for_feeds(listener_->acceptor(), options_.listen, options_.streams,
                   options_.key.has_value(), "tcp");
  listener_->start([self = shared_from_this()](tcp::socket socket) {
    return std::make_shared<Session>(self, std::move(socket));
  });
}

Endpoint TcpReceiver::local_endpoint() const {
  return listener_->local_endpoint();
}

void TcpReceiver::stop() {
  listener_->stop();
}

}  // namespace hdstream
