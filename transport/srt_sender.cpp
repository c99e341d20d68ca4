#include "transport/srt_sender.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "common/clock.hpp"
#include "common/log.hpp"
#include "common/units.hpp"
#include "protocol/handshake.hpp"
#include "transport/feedback.hpp"
#include "transport/srt_link.hpp"

namespace hdstream {

SrtSender::SrtSender(asio::any_io_executor executor, SenderOptions options,
                     StreamCounters& counters)
    : options_(std::move(options)),
      counters_(counters),
      remote_{options_.destination.host,
              static_cast<std::uint16_t>(options_.destination.port + options_.stream_id)},
      feed_(std::move(executor), options_.max_queued_frames),
      chunk_bytes_(options_.hello.chunk_bytes) {
  // sender_options() (transport/feed_request.hpp) plans these; anything else is a caller's bug.
  const Hello& hello = options_.hello;
  if (hello.transport != TransportKind::srt || hello.connections != 1 ||
      hello.chunk_bytes != srt_chunk_bytes(options_.srt) ||
      std::chrono::milliseconds(hello.latency_budget_ms) !=
          std::chrono::duration_cast<std::chrono::milliseconds>(options_.srt.latency)) {
    throw std::invalid_argument("SrtSender: options not planned by sender_options()");
  }
}

SrtSender::~SrtSender() {
  // The thread does not own the sender: whoever drops the last reference waits for it here
  // (at most ~100 ms: every libsrt call in run() has a timeout), so nothing outlives the
  // io_context or the stats the sender writes to.
  feed_.join();
}

awaitable<bool> SrtSender::open() {
  counters_.planned_bps.store(options_.hello.feed.bit_rate_bps, std::memory_order_relaxed);
  co_return co_await feed_.start(weak_from_this(), [this] { run(); });
}

bool SrtSender::send_message(std::span<const std::byte> message) {
  return send_srt_message(socket_, message, feed_.stop_flag());
}

bool SrtSender::connect_and_handshake() {
  SrtPlan plan = srt_plan(options_.hello.feed.bit_rate_bps, options_.srt, options_.expected_rtt);
  // A probe says so in its stream id too: the listener then serves it beside the port's feed.
  plan.probe = (options_.hello.flags & kHelloProbe) != 0;
  // So does a leg of a protected feed: the listener serves leg B beside leg A on the same port.
  plan.leg = options_.hello.leg;
  std::optional<SrtSocket> connected =
      connect_srt_caller(plan, remote_, options_.source, options_.connect_patience,
                         feed_.stop_flag(), options_.stream_id);
  if (!connected) return false;
  socket_ = std::move(*connected);
  // A receiver with --srt-fec gives a sender without it its filter, and 4 bytes less a packet.
  const int room = socket_.payload_bytes() - static_cast<int>(kHeaderBytes);
  if (room > 0 && static_cast<std::uint32_t>(room) < chunk_bytes_) {
    chunk_bytes_ = static_cast<std::uint32_t>(room);
    options_.hello.chunk_bytes = chunk_bytes_;
  }
  // The hdstream handshake rides inside the SRT connection: feed descriptor, first frame.
  auto hello = encode_hello(options_.stream_id, options_.hello);
  if (!send_message(hello)) return false;
  const auto deadline_ack = std::chrono::steady_clock::now() + options_.handshake_timeout;
  while (!stopped() && std::chrono::steady_clock::now() < deadline_ack) {
    std::size_t received = 0;
    const SrtIo io = socket_.receive(reply_, received);
    if (io == SrtIo::timeout) continue;
    if (io == SrtIo::closed) break;
    MessageHeader header;
    const auto bytes = std::span<const std::byte>(reply_).first(received);
    std::optional<HelloAck> ack;
    if (decode_header(bytes, header) == HeaderError::none &&
        header.type == MessageType::hello_ack && header.payload_bytes == received - kHeaderBytes) {
      ack = decode_hello_ack(bytes.subspan(kHeaderBytes));
    }
    if (!ack) {
      srt_log()->error("stream {}: malformed handshake reply from {}", options_.stream_id,
                       remote_.to_string());
      return false;
    }
    if (ack->status != AckStatus::accepted) {
      srt_log()->error("stream {}: receiver refused the feed: {}{}{}", options_.stream_id,
                       to_string(ack->status), ack->reason.empty() ? "" : ": ", ack->reason);
      return false;
    }
    return true;
  }
  if (!stopped()) {
    srt_log()->error("stream {}: no handshake reply from {} within {}", options_.stream_id,
                     remote_.to_string(), format_duration(options_.handshake_timeout));
  }
  return false;
}

bool SrtSender::send_frame(const Frame& frame) {
  packetize(frame, chunk_bytes_, chunks_);
  for (const auto& chunk : chunks_) {
    // libsrt has no gather send: header and payload are joined in one reused packet buffer.
    std::memcpy(packet_.data(), chunk.header.data(), kHeaderBytes);
    std::memcpy(packet_.data() + kHeaderBytes, chunk.payload.data(), chunk.payload.size());
    if (!send_message(std::span(packet_).first(kHeaderBytes + chunk.payload.size()))) {
      return false;
    }
  }
  return true;
}

void SrtSender::read_feedback() {
  // Non-blocking after the handshake: whatever the receiver has reported so far.
  std::size_t received = 0;
  while (socket_.receive(reply_, received) == SrtIo::ok) apply_message(received);
}

bool SrtSender::apply_message(std::size_t received) {
  MessageHeader header;
  const auto bytes = std::span<const std::byte>(reply_).first(received);
  std::optional<Feedback> feedback;
  if (decode_header(bytes, header) == HeaderError::none && header.type == MessageType::feedback &&
      header.payload_bytes == received - kHeaderBytes) {
    feedback = decode_feedback(bytes.subspan(kHeaderBytes));
  }
  // Health reports must never take a feed down: a bad one is logged and ignored.
  if (feedback) {
    apply_feedback(*feedback, counters_.far_end, wall_clock_ns());
    return header.frame_seq == kLastFeedbackMark;
  }
  if (bad_feedback_++ < 5) {
    srt_log()->warn("stream {}: ignoring a malformed message from the receiver",
                    options_.stream_id);
  }
  return false;
}

void SrtSender::sample_stats(bool force) {
  const auto now = std::chrono::steady_clock::now();
  if (!force && now < next_stats_) return;
  next_stats_ = now + std::chrono::milliseconds(250);
  publish_srt_stats(socket_.stats(), /*sender=*/true, counters_);
}

// END is the feed's last packet: if it is lost no later packet shows the gap, and live mode
// resends only what the receiver reports missing. So END is repeated until the receiver's last
// report (the receiver acts on the first and drains the rest). With a packet filter, the feed's
// last packets are in FEC groups that only later packets complete: a matrix and a row of
// repeats at once gives every such group its FEC packet (or its dismissal, which reports what
// FEC cannot rebuild for retransmission), so a loss among them is not left to the latency.
std::size_t SrtSender::end_repeats() const {
  const std::string filter = socket_.packet_filter();
  if (filter.empty()) return 1;
  try {
    const SrtFec fec = parse_srt_fec(filter);
    return std::min<std::size_t>(kMaxEndRepeats, fec.matrix_packets() + fec.cols);
  } catch (const SrtFecError&) {
    return kMaxEndRepeats;  // a filter hdstream did not ask for: libsrt's syntax changed
  }
}

bool SrtSender::finish(std::uint64_t frames_sent) {
  auto end = encode_end(options_.stream_id, End{frames_sent});
  for (std::size_t i = end_repeats(); i > 0; --i) {
    if (!send_message(end)) return false;
  }
  // Live mode has no linger: closing now could discard packets still in the send buffer. The
  // receiver closes once it has END, which ends this read.
  const auto deadline =
      std::chrono::steady_clock::now() + options_.handshake_timeout + options_.srt.latency;
  socket_.set_receive_blocking(true);
  auto repeat_at = std::chrono::steady_clock::now() + kEndRepeatInterval;
  while (!stopped() && std::chrono::steady_clock::now() < deadline) {
    std::size_t received = 0;
    sample_stats();
    if (const auto now = std::chrono::steady_clock::now(); now >= repeat_at) {
      repeat_at = now + kEndRepeatInterval;
      if (!send_message(end)) return false;
    }
    const SrtIo io = socket_.receive(reply_, received);
    if (io == SrtIo::closed) return true;
    // The receiver's last report has the final counts; then this side closes.
    if (io == SrtIo::ok && apply_message(received)) return true;
  }
  if (!stopped()) {
    srt_log()->error("stream {}: receiver did not confirm the end of the feed", options_.stream_id);
  }
  return false;
}

void SrtSender::run() {
  const bool connected = connect_and_handshake();
  if (!connected) {
    counters_.state.store(StreamState::failed, std::memory_order_relaxed);
    socket_.close();
    feed_.opened(false);
    feed_.finished(false);
    return;
  }
  srt_log()->info("stream {}: SRT live to {}, latency {}, {}", options_.stream_id,
                  remote_.to_string(), format_duration(options_.srt.latency),
                  options_.srt.passphrase.empty()
                      ? std::string("unencrypted")
                      : fmt::format("AES-{}", options_.srt.key_length_bytes * 8));
  counters_.state.store(StreamState::running, std::memory_order_relaxed);
  socket_.set_receive_blocking(false);  // FEEDBACK is polled between frames
  feed_.opened(true);

  bool ok = true;
  bool closing = false;
  for (FramePtr frame; !closing;) {
    switch (feed_.take(frame)) {
      case FeedThread::Take::stopped:
        ok = false;
        closing = true;
        continue;
      case FeedThread::Take::closing:
        closing = true;
        continue;
      case FeedThread::Take::idle:
        sample_stats();
        read_feedback();
        continue;
      case FeedThread::Take::frame:
        break;
    }
    if (!send_frame(*frame)) {
      ok = false;
      if (!stopped())
        srt_log()->error("stream {}: SRT connection to {} lost", options_.stream_id,
                         remote_.to_string());
      break;
    }
    counters_.add_frame(frame->data.size(), wall_clock_ns());
    sample_stats();
    read_feedback();
  }
  feed_.stop_accepting();
  if (ok && !stopped()) ok = finish(feed_.frames_sent());
  sample_stats(true);
  socket_.close();
  ok = ok && !stopped();
  counters_.state.store(ok ? StreamState::finished : StreamState::failed,
                        std::memory_order_relaxed);
  feed_.finished(ok);
}

awaitable<bool> SrtSender::reopen(std::uint64_t first_frame_seq) {
  if (options_.reconnect_patience.count() == 0) co_return false;
  options_.hello.first_frame_seq = first_frame_seq;
  // Every connection after the first is a resumption: run() retries it for this long.
  options_.connect_patience = options_.reconnect_patience;
  srt_log()->warn("stream {}: reconnecting to {} to resume at frame {} (retrying for {})",
                  options_.stream_id, remote_.to_string(), first_frame_seq,
                  format_duration(options_.connect_patience));
  std::size_t discarded = 0;
  const bool resumed = co_await feed_.restart([this] { run(); }, discarded);
  counters_.drops.fetch_add(discarded, std::memory_order_relaxed);
  if (resumed)
    srt_log()->info("stream {}: resumed at frame {}", options_.stream_id, first_frame_seq);
  co_return resumed;
}

SubmitResult SrtSender::submit(FramePtr frame) {
  return feed_.submit(std::move(frame));
}

awaitable<bool> SrtSender::close(std::uint64_t frames_sent) {
  co_return co_await feed_.close(frames_sent);
}

void SrtSender::stop() {
  feed_.stop();  // every libsrt call in run() returns within 100 ms (1 s while connecting)
}

}  // namespace hdstream
