#include "transport/srt/srt_sender.hpp"

#include <algorithm>
#include <cstring>
#include <random>
#include <stdexcept>

#include "common/clock.hpp"
#include "common/log.hpp"
#include "common/units.hpp"
#include "protocol/handshake.hpp"
#include "transport/feedback.hpp"
#include "transport/srt/srt_link.hpp"

namespace hdstream {

SrtSender::SrtSender(asio::any_io_executor executor, SenderOptions options,
                     StreamCounters& counters)
    : options_(std::move(options)),
      counters_(counters),
      remote_{options_.destination.host,
              static_cast<std::uint16_t>(options_.destination.port + options_.stream_id)},
      scheduler_(options_.hello.connections),
      feed_(std::move(executor), options_.max_queued_frames),
      chunk_bytes_(options_.hello.chunk_bytes) {
  // sender_options() (transport/feed_request.hpp) plans these; anything else is a caller's bug.
  const Hello& hello = options_.hello;
  if (hello.transport != TransportKind::srt || hello.connections < 1 ||
      hello.connections > kMaxSubconnections ||
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

std::optional<HelloAck> SrtSender::await_hello_ack(SrtSocket& socket, const Endpoint& remote) {
  const auto deadline_ack = std::chrono::steady_clock::now() + options_.handshake_timeout;
  while (!stopped() && std::chrono::steady_clock::now() < deadline_ack) {
    std::size_t received = 0;
    const SrtIo io = socket.receive(reply_, received);
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
                       remote.to_string());
    }
    return ack;
  }
  if (!stopped()) {
    srt_log()->error("stream {}: no handshake reply from {} within {}", options_.stream_id,
                     remote.to_string(), format_duration(options_.handshake_timeout));
  }
  return std::nullopt;
}

std::optional<HelloAck> SrtSender::connect_stripe(std::size_t stripe, const Endpoint& remote,
                                                  std::chrono::nanoseconds patience) {
  const std::size_t stripes = options_.hello.connections;
  SrtPlan plan = srt_plan(srt_stripe_rate_bps(options_.hello.feed.bit_rate_bps, stripes),
                          options_.srt, options_.expected_rtt);
  // A probe says so in its stream id too: the listener then serves it beside the port's feed.
  plan.probe = (options_.hello.flags & kHelloProbe) != 0;
  // So does a leg of a protected feed: the listener serves leg B beside leg A on the same port.
  plan.leg = options_.hello.leg;
  std::optional<SrtSocket> connected = connect_srt_caller(plan, remote, options_.source, patience,
                                                          feed_.stop_flag(), options_.stream_id);
  if (!connected) return std::nullopt;
  SrtSocket& socket = stripes_.emplace_back(std::move(*connected));
  if (stripe == 0) {
    // A receiver with --srt-fec gives a sender without it its filter, and 4 bytes less a packet.
    const int room = socket.payload_bytes() - static_cast<int>(kHeaderBytes);
    if (room > 0 && static_cast<std::uint32_t>(room) < chunk_bytes_) {
      chunk_bytes_ = static_cast<std::uint32_t>(room);
      options_.hello.chunk_bytes = chunk_bytes_;
    }
  }
  // The hdstream handshake rides inside each SRT connection: feed descriptor, first frame,
  // and for stripes their count, index and session.
  Hello hello = options_.hello;
  hello.subconnection = static_cast<std::uint8_t>(stripe);
  if (!send_srt_message(socket, encode_hello(options_.stream_id, hello), feed_.stop_flag())) {
    return std::nullopt;
  }
  return await_hello_ack(socket, remote);
}

bool SrtSender::connect_and_handshake() {
  const std::size_t stripes = options_.hello.connections;
  stripes_.clear();
  scheduler_ = SrtStripeScheduler(stripes);
  if (stripes > 1) {
    // A new session id each session: the receiver's stripe ports take only this session's.
    std::random_device random;
    options_.hello.session_id = 0;
    while (options_.hello.session_id == 0) {
      options_.hello.session_id = (std::uint64_t{random()} << 32) | random();
    }
  }
  std::optional<HelloAck> ack = connect_stripe(0, remote_, options_.connect_patience);
  if (!ack) return false;
  if (ack->status != AckStatus::accepted) {
    srt_log()->error("stream {}: receiver refused the feed: {}{}{}{}", options_.stream_id,
                     to_string(ack->status), ack->reason.empty() ? "" : ": ", refusal_reason(*ack),
                     older_receiver_hint(options_.hello, *ack));
    return false;
  }
  counters_.far_end.receiver.set(named_receiver(*ack));
  if (ack->stripe_ports.size() + 1 != stripes) {
    srt_log()->error(
        "stream {}: the receiver's answer names {} stripe port(s) for a feed of {} stripes",
        options_.stream_id, ack->stripe_ports.size(), stripes);
    return false;
  }
  for (std::size_t stripe = 1; stripe < stripes; ++stripe) {
    const Endpoint remote{remote_.host, ack->stripe_ports[stripe - 1]};
    // The receiver opened the port before it answered: a stripe that cannot reach it within
    // the handshake timeout meets a firewall, not a receiver starting up.
    std::optional<HelloAck> stripe_ack = connect_stripe(stripe, remote, options_.handshake_timeout);
    if (!stripe_ack) return false;
    if (stripe_ack->status != AckStatus::accepted) {
      srt_log()->error("stream {}: receiver refused stripe {}: {}: {}", options_.stream_id, stripe,
                       to_string(stripe_ack->status), refusal_reason(*stripe_ack));
      return false;
    }
  }
  return true;
}

bool SrtSender::send_frame(const Frame& frame) {
  packetize(frame, chunk_bytes_, chunks_);
  for (const auto& chunk : chunks_) {
    // libsrt has no gather send: header and payload are joined in one reused packet buffer.
    std::memcpy(packet_.data(), chunk.header.data(), kHeaderBytes);
    std::memcpy(packet_.data() + kHeaderBytes, chunk.payload.data(), chunk.payload.size());
    const auto message = std::span(packet_).first(kHeaderBytes + chunk.payload.size());
    const std::size_t stripe = stripes_.size() == 1 ? 0 : scheduler_.pick(stripes_, message.size());
    if (!send_srt_message(stripes_[stripe], message, feed_.stop_flag())) return false;
    if (stripes_.size() > 1) {
      counters_.striped.subconnections[stripe].bytes.fetch_add(chunk.payload.size(),
                                                            std::memory_order_relaxed);
    }
  }
  return true;
}

void SrtSender::read_feedback() {
  // Non-blocking after the handshake: whatever the receiver has reported so far.
  std::size_t received = 0;
  while (stripes_.front().receive(reply_, received) == SrtIo::ok) apply_message(received);
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
  SrtStats stats;
  for (std::size_t i = 0; i < stripes_.size(); ++i) {
    const SrtStats stripe = stripes_[i].stats();
    add_srt_stats(stats, stripe);
    if (stripes_.size() > 1) {  // each stripe is a `subconn` line of the feed
      SubconnectionCounters& sub = counters_.striped.subconnections[i];
      sub.rtt_ms.store(stripe.rtt_ms, std::memory_order_relaxed);
      sub.retransmits.store(stripe.sent_retransmits, std::memory_order_relaxed);
    }
  }
  publish_srt_stats(stats, /*sender=*/true, counters_);
}

// END is the feed's last packet: if it is lost no later packet shows the gap, and live mode
// resends only what the receiver reports missing. So END is repeated until the receiver's last
// report (the receiver acts on the first and drains the rest). With a packet filter, the feed's
// last packets are in FEC groups that only later packets complete: a matrix and a row of
// repeats at once gives every such group its FEC packet (or its dismissal, which reports what
// FEC cannot rebuild for retransmission), so a loss among them is not left to the latency.
std::size_t SrtSender::end_repeats() const {
  const std::string filter = stripes_.front().packet_filter();
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
  // On every stripe: each one's END follows its last chunk, so the receiver knows when all
  // of them are in.
  // Repeats need only reach stripe 0: the receiver closes the other stripes once it has every
  // stripe's END, before its last report.
  auto send_end = [&](bool repeat) {
    for (std::size_t i = 0; i < stripes_.size(); ++i) {
      if (!send_srt_message(stripes_[i], end, feed_.stop_flag()) && (i == 0 || !repeat)) {
        return false;
      }
    }
    return true;
  };
  for (std::size_t i = end_repeats(); i > 0; --i) {
    if (!send_end(/*repeat=*/false)) return false;
  }
  // Live mode has no linger: closing now could discard packets still in the send buffer. The
  // receiver answers END with its last report, repeated until this side closes; a receiver that
  // closes instead gave up on the feed (a stripe broke, a frame too large, END missing on a
  // stripe), and its counts are not final.
  const auto deadline =
      std::chrono::steady_clock::now() + options_.handshake_timeout + options_.srt.latency;
  SrtSocket& socket = stripes_.front();  // the receiver's reports come on stripe 0
  socket.set_receive_blocking(true);
  auto repeat_at = std::chrono::steady_clock::now() + kSrtLastMessageRepeat;
  while (!stopped() && std::chrono::steady_clock::now() < deadline) {
    std::size_t received = 0;
    sample_stats();
    if (const auto now = std::chrono::steady_clock::now(); now >= repeat_at) {
      repeat_at = now + kSrtLastMessageRepeat;
      if (!send_end(/*repeat=*/true)) return false;
    }
    const SrtIo io = socket.receive(reply_, received);
    if (io == SrtIo::closed) {
      srt_log()->error("stream {}: the receiver closed before confirming the end of the feed",
                       options_.stream_id);
      return false;
    }
    // The receiver's last report has the final counts; then this side closes.
    if (io == SrtIo::ok && apply_message(received)) return true;
  }
  if (!stopped()) {
    srt_log()->error("stream {}: receiver did not confirm the end of the feed", options_.stream_id);
  }
  return false;
}

void SrtSender::set_stripe_states(StreamState state) {
  if (options_.hello.connections < 2) return;
  for (std::size_t i = 0; i < options_.hello.connections; ++i) {
    counters_.striped.subconnections[i].state.store(state, std::memory_order_relaxed);
  }
}

void SrtSender::run() {
  const bool connected = connect_and_handshake();
  if (!connected) {
    counters_.state.store(StreamState::failed, std::memory_order_relaxed);
    stripes_.clear();
    feed_.opened(false);
    feed_.finished(false);
    return;
  }
  srt_log()->info(
      "stream {}: SRT live to {}{}, latency {}, {}", options_.stream_id, remote_.to_string(),
      stripes_.size() > 1 ? fmt::format(", striped over {} connections", stripes_.size())
                          : std::string(),
      format_duration(options_.srt.latency),
      options_.srt.passphrase.empty() ? std::string("unencrypted")
                                      : fmt::format("AES-{}", options_.srt.key_length_bytes * 8));
  counters_.state.store(StreamState::running, std::memory_order_relaxed);
  set_stripe_states(StreamState::running);
  stripes_.front().set_receive_blocking(false);  // FEEDBACK is polled between frames
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
        srt_log()->error(
            "stream {}: SRT connection to {} lost{}", options_.stream_id, remote_.to_string(),
            stripes_.size() > 1 ? " (a stripe broke: the feed re-opens on all of them)" : "");
      break;
    }
    counters_.add_frame(frame->data.size(), wall_clock_ns());
    sample_stats();
    read_feedback();
  }
  feed_.stop_accepting();
  if (ok && !stopped()) ok = finish(feed_.frames_sent());
  sample_stats(true);
  stripes_.clear();
  ok = ok && !stopped();
  counters_.state.store(ok ? StreamState::finished : StreamState::failed,
                        std::memory_order_relaxed);
  set_stripe_states(ok ? StreamState::finished : StreamState::failed);
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
