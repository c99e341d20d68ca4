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
  // A probe is counted apart from the feed that owns the stream id; a leg of a protected feed
  // in the leg's counters (LegMerge).
  StreamCounters& session_counters() {
    return probe_ ? probe_->counters() : owner_->merge_.counters(stream_id_, hello_);
  }
  FrameConsumer& consumer() { return owner_->merge_.leg(hello_.leg); }
  awaitable<void> finish_feedback(bool clean);

  std::shared_ptr<TcpReceiver> owner_;
  tcp::socket socket_;
  std::string peer_;
  std::uint16_t stream_id_ = 0;
  Hello hello_;  // once accepted
  std::vector<std::byte> body_;
  std::vector<std::byte> scratch_;
  std::int64_t next_info_ns_ = 0;
  ReassemblerConfig reassembly_;             // bounds from the HELLO
  std::optional<MemoryReservation> memory_;  // what those bounds may hold
  std::optional<CapacityProbe> probe_;       // set: this session is a `check` capacity probe
  // Far-end feedback: the only writer on the socket after the handshake.
  asio::steady_timer feedback_timer_;
  AsyncEvent feedback_done_;
  FeedbackMeter feedback_meter_;
  bool session_over_ = false;
  bool ended_cleanly_ = false;
  std::uint64_t next_seq_ = 0;  // after receive(): frames below were delivered or counted
};

awaitable<void> TcpReceiver::Session::feedback_loop() {
  StreamCounters& counters = session_counters();
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
  std::string reason;
  // A probe takes none of the stream's slot: it may run beside the feed that holds it.
  const bool probe = is_capacity_probe(*intake.hello);
  const AckStatus status = owner_->claim(stream_id, *intake.hello, probe, reason);
  if (status != AckStatus::accepted) {
    co_await send_hello_ack(socket_, stream_id, status, std::move(reason), peer_, "tcp",
                            owner_->options_.key ? RefusalLog::proven : RefusalLog::stranger);
    co_return std::nullopt;
  }
  reassembly_ = reassembler_config(*intake.hello);
  reassembly_.max_frames_in_flight = owner_->options_.max_frames_in_flight;
  memory_ =
      owner_->memory_for(probe).admit(owner_->merge_.reserved_config(*intake.hello, reassembly_),
                                      /*readers=*/1, peer_, stream_id, reason, intake.hello->legs);
  if (!memory_) {
    owner_->release(stream_id, intake.hello->leg, probe);
    co_await send_hello_ack(socket_, stream_id, AckStatus::bad_request, std::move(reason), peer_,
                            "tcp", RefusalLog::none);
    co_return std::nullopt;
  }
  stream_id_ = stream_id;
  hello_ = *intake.hello;
  if (!co_await send_hello_ack(socket_, stream_id, AckStatus::accepted, receiver_identity(), peer_,
                               "tcp")) {
    memory_.reset();
    owner_->release(stream_id, hello_.leg, probe);
    co_return std::nullopt;
  }
  if (probe) probe_.emplace(log(), stream_id, peer_);
  established();
  co_return intake.hello;
}

void TcpReceiver::Session::tune_receive_buffer(const Hello& hello) {
  const auto limits = read_kernel_limits(BufferDirection::receive);
  const auto rtt = std::chrono::microseconds(hello.expected_rtt_us);
  // What the HELLO announces sizes the buffer, up to the stream's share of --max-memory: a
  // stranger's HELLO of 100 Gbps over a 10 s RTT gets no gigabyte of kernel memory.
  const std::uint64_t share = owner_->memory_for(probe_.has_value()).budget().limit_bytes() /
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
  StreamCounters& counters = session_counters();
  FrameConsumer& consumer = this->consumer();
  // One in-order connection: a gap is final (latency budget 0). On the heap: with the settled
  // frames it remembers it would take the coroutine frame past Asio's small-block size, which
  // the ASan build (GCC 12, Boost 1.74) refuses (-Wmismatched-new-delete; message_io.hpp's
  // MessageReader keeps its slots on the heap for the same reason).
  const auto reassembler_on_heap = std::make_unique<Reassembler>(
      stream_id_, reassembly_, owner_->memory_for(probe_.has_value()).pool());
  Reassembler& reassembler = *reassembler_on_heap;
  ReassemblyPublisher publisher(log(), stream_id_);

  auto deliver = [&](std::int64_t now) {
    publisher.publish(reassembler.counters(), counters);
    deliver_ready_frames(reassembler, now, probe_ ? &*probe_ : nullptr, consumer, stream_id_,
                         publisher, counters);
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
        owner_->memory_for(probe_.has_value())
            .frame_too_large(peer_, stream_id_, header, reassembly_);
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
  if (probe_) {
    probe_->started(*hello, "over tcp");
  } else {
    const AudioFormat& audio = hello->feed.audio;
    log()->info("stream {}: feed from {} accepted ({} {}x{} @ {:.2f} fps, {}{})", stream_id_, peer_,
                to_string(hello->feed.codec), hello->feed.width, hello->feed.height,
                hello->feed.frames_per_second(),
                audio.present()
                    ? fmt::format("{} channels of {}-bit sound, ", audio.channels, audio.bits)
                    : std::string(),
                format_rate(static_cast<double>(hello->feed.bit_rate_bps)));
  }
  tune_receive_buffer(*hello);
  // A silent path breaks the session once the sender has been silent this long.
  set_stall_timeout(socket_.native_handle(),
                    stall_timeout(std::chrono::microseconds(hello->expected_rtt_us)));
  StreamCounters& counters = session_counters();
  if (!probe_) {
    counters.planned_bps.store(hello->feed.bit_rate_bps, std::memory_order_relaxed);
    counters.state.store(StreamState::running, std::memory_order_relaxed);
    counters.latency_budget_ms.store(hello->latency_budget_ms, std::memory_order_relaxed);
    consumer().session_started(stream_id_, *hello);
  }
  asio::co_spawn(
      socket_.get_executor(), [self = shared_from_this()] { return self->feedback_loop(); },
      asio::detached);

  const bool clean = co_await receive();
  co_await finish_feedback(clean);

  if (probe_) {
    probe_->ended(clean);
  } else {
    counters.state.store(clean ? StreamState::finished : StreamState::failed,
                         std::memory_order_relaxed);
    consumer().session_ended(stream_id_, clean, next_seq_);
  }
  boost::system::error_code ignored;
  socket_.shutdown(tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
  memory_.reset();  // before the stream id is free: its next session reserves afresh
  owner_->release(stream_id_, hello_.leg, probe_.has_value());
}

TcpReceiver::TcpReceiver(asio::io_context& context, ReceiverOptions options, StatsRegistry& stats,
                         FrameConsumer& consumer)
    : options_(std::move(options)),
      stats_(stats),
      merge_(consumer, stats, {.streams = options_.streams, .skew = options_.skew}),
      listener_(
          std::make_shared<TcpListener>(context, "tcp", feed_listener_options(options_.streams))),
      memory_(options_.max_memory_bytes, options_.streams, 4 * options_.streams + 8, "tcp"),
      probe_memory_(options_.max_memory_bytes, options_.streams, 2, "tcp"),
      max_probes_(max_capacity_probes(options_.streams)) {}

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

AckStatus TcpReceiver::claim(std::uint16_t stream_id, const Hello& hello, bool probe,
                             std::string& reason) {
  if (!probe) return merge_.claim(stream_id, hello, reason);
  std::lock_guard lock(mutex_);
  if (stream_id >= options_.streams) {
    reason = fmt::format("this receiver serves streams 0..{}", options_.streams - 1);
    return AckStatus::bad_stream;
  }
  if (probes_running_ >= max_probes_) {
    reason = capacity_probes_busy(max_probes_);
    return AckStatus::stream_busy;
  }
  ++probes_running_;
  return AckStatus::accepted;
}

void TcpReceiver::release(std::uint16_t stream_id, std::uint8_t leg, bool probe) {
  if (!probe) {
    merge_.release(stream_id, leg);
    return;
  }
  std::lock_guard lock(mutex_);
  --probes_running_;
}

void TcpReceiver::stop() {
  listener_->stop();
}

}  // namespace hdstream
