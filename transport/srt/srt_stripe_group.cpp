#include "transport/srt/srt_stripe_group.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "common/log.hpp"
#include "common/provenance.hpp"
#include "transport/hello_intake.hpp"
#include "transport/srt/srt_link.hpp"
#include "transport/srt/srt_stripes.hpp"

namespace hdstream {

SrtStripeGroup::SrtStripeGroup(const SrtPlan& plan, const Endpoint& listen,
                               std::vector<std::uint16_t> ports, std::uint16_t stream,
                               const Hello& hello, std::chrono::nanoseconds handshake_timeout,
                               StreamCounters& counters, OnChunk on_chunk)
    : ports_(std::move(ports)),
      stream_(stream),
      hello_(hello),
      handshake_timeout_(handshake_timeout),
      counters_(counters),
      on_chunk_(std::move(on_chunk)) {
  Endpoint local = listen;
  if (local.host == "0.0.0.0") local.host.clear();
  for (std::size_t i = 0; i < ports_.size(); ++i) {
    auto stripe = std::make_unique<Stripe>();
    stripe->index = i + 1;
    local.port = ports_[i];
    stripe->listener = SrtSocket::listener(plan, local);  // throws, naming the port
    stripes_.push_back(std::move(stripe));
  }
}

SrtStripeGroup::~SrtStripeGroup() {
  stopped_ = true;
  for (auto& stripe : stripes_) {
    if (stripe->thread.joinable()) stripe->thread.join();
  }
}

void SrtStripeGroup::start() {
  for (auto& stripe : stripes_) {
    stripe->thread = std::thread([this, &stripe = *stripe] { serve(stripe); });
  }
}

bool SrtStripeGroup::wait_ended(std::chrono::steady_clock::time_point deadline,
                                const std::atomic<bool>& stopped) {
  std::unique_lock lock(mutex_);
  for (;;) {
    bool all = true;
    for (const auto& stripe : stripes_) all = all && stripe->ended;
    if (all) return true;
    if (broken_ || stopped || stopped_ || std::chrono::steady_clock::now() >= deadline) {
      return false;
    }
    changed_.wait_for(lock, std::chrono::milliseconds(100));
  }
}

SrtStats SrtStripeGroup::stats() const {
  std::lock_guard lock(mutex_);
  SrtStats total;
  for (const auto& stripe : stripes_) add_srt_stats(total, stripe->stats);
  return total;
}

std::string SrtStripeGroup::check(const Stripe& stripe, std::uint16_t header_stream,
                                  const Hello& hello) const {
  if (header_stream != stream_) {
    return fmt::format("UDP port {} carries stripe {} of stream {}, not stream {}",
                       ports_[stripe.index - 1], stripe.index, stream_, header_stream);
  }
  if (hello.connections != hello_.connections || hello.session_id != hello_.session_id) {
    // A stranger cannot join a feed: it must name the running session's random id.
    return "a stripe of an unknown session";
  }
  if (hello.subconnection != stripe.index) {
    return fmt::format("stripe {} announced on the port of stripe {}", hello.subconnection,
                       stripe.index);
  }
  if (hello.feed != hello_.feed || hello.chunk_bytes != hello_.chunk_bytes ||
      hello.first_frame_seq != hello_.first_frame_seq ||
      hello.latency_budget_ms != hello_.latency_budget_ms || hello.flags != hello_.flags ||
      hello.legs != hello_.legs) {
    return "its HELLO does not describe stripe 0's feed";
  }
  return {};
}

bool SrtStripeGroup::refuse(SrtSocket& caller, AckStatus status, const std::string& reason) {
  if (auto held_back = refusals_.admit()) {
    srt_log()->warn("refused a stripe from {} (stream {}): {}{}", caller.peer(), stream_, reason,
                    held_back_note(*held_back));
  }
  caller.set_receive_blocking(false);
  return caller.send(encode_hello_ack(stream_, HelloAck{status, reason, {}})) == SrtIo::ok;
}

// The callers on a stripe's port are heard side by side, each for at most kHelloWait: a stranger
// that connects first and says nothing holds one of kMaxPendingCallers places for a moment, never
// the stripe. A refused caller is given kRefusalDrain to read its refusal (SRT hands it over at
// its play time) and close, beside the others. The real stripe sends its HELLO as soon as it has
// connected.
std::optional<SrtSocket> SrtStripeGroup::admit(Stripe& stripe) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + handshake_timeout_;
  const std::uint16_t port = ports_[stripe.index - 1];
  struct Caller {
    SrtSocket socket;
    Clock::time_point until;
  };
  std::vector<Caller> pending;  // not heard yet
  std::vector<Caller> refused;  // reading their refusal
  std::array<std::byte, kSrtMaxPayloadBytes> message;
  while (!stopped_ && !broken_ && Clock::now() < deadline) {
    try {
      const auto wait = std::chrono::milliseconds(pending.empty() && refused.empty() ? 100 : 5);
      if (auto caller = stripe.listener.accept(wait)) {
        caller->set_receive_blocking(false);
        if (pending.size() == kMaxPendingCallers) {
          pending.erase(pending.begin());  // the oldest has had the longest to speak
        }
        pending.push_back({std::move(*caller), Clock::now() + kHelloWait});
      }
    } catch (const SrtError& error) {
      srt_log()->warn("stream {}: stripe {}: {}", stream_, stripe.index, error.what());
    }
    std::erase_if(refused, [&](Caller& caller) {
      std::size_t received = 0;
      return caller.socket.receive(message, received) == SrtIo::closed ||
             Clock::now() >= caller.until;
    });
    for (auto it = pending.begin(); it != pending.end();) {
      std::size_t received = 0;
      const SrtIo io = it->socket.receive(message, received);
      if (io == SrtIo::timeout && Clock::now() < it->until) {
        ++it;
        continue;
      }
      SrtSocket caller = std::move(it->socket);
      it = pending.erase(it);
      if (io != SrtIo::ok) continue;  // closed, or silent for kHelloWait
      auto intake =
          examine_hello(std::span<const std::byte>(message).first(received), TransportKind::srt);
      if (!intake.reply) {
        if (auto held_back = refusals_.admit()) {
          srt_log()->warn("stream {}: closing {} on stripe {}'s port {}: {}{}", stream_,
                          caller.peer(), stripe.index, port, intake.reason,
                          held_back_note(*held_back));
        }
        continue;
      }
      if (intake.hello) intake.reason = check(stripe, intake.stream_id, *intake.hello);
      if (!intake.reason.empty()) {
        const auto status = intake.hello && intake.stream_id != stream_ ? AckStatus::bad_stream
                                                                        : AckStatus::bad_request;
        if (refuse(caller, status, intake.reason) && refused.size() < kMaxPendingCallers) {
          refused.push_back({std::move(caller), Clock::now() + kRefusalDrain});
        }
        continue;
      }
      caller.set_receive_blocking(true);
      if (caller.send(encode_hello_ack(
              stream_, HelloAck{AckStatus::accepted, receiver_identity(), {}})) != SrtIo::ok) {
        continue;
      }
      return caller;
    }
  }
  if (!stopped_ && !broken_) {
    srt_log()->warn(
        "stream {}: stripe {} never connected on UDP port {} within the handshake timeout (is the "
        "port open?)",
        stream_, stripe.index, port);
  }
  return std::nullopt;
}

void SrtStripeGroup::serve(Stripe& stripe) {
  auto mark_broken = [this] {
    std::lock_guard lock(mutex_);
    broken_ = true;
    changed_.notify_all();
  };
  std::optional<SrtSocket> socket = admit(stripe);
  if (!socket) {
    if (!stopped_) mark_broken();
    return;
  }
  const std::string peer = socket->peer();
  // Each stripe is a `subconn` line of the feed (its bytes, RTT, retransmits, state).
  SubconnectionCounters& mine = counters_.striped.subconnections[stripe.index];
  mine.state.store(StreamState::running, std::memory_order_relaxed);
  std::array<std::byte, kSrtMaxPayloadBytes> message;
  auto next_stats = std::chrono::steady_clock::now();
  auto next_turn_away = next_stats + std::chrono::milliseconds(100);
  while (!stopped_ && !broken_) {
    std::size_t received = 0;
    const SrtIo io = socket->receive(message, received);
    const auto now = std::chrono::steady_clock::now();
    if (now >= next_stats) {
      next_stats = now + std::chrono::milliseconds(250);
      std::lock_guard lock(mutex_);
      stripe.stats = socket->stats();
      mine.rtt_ms.store(stripe.stats.rtt_ms, std::memory_order_relaxed);
      mine.retransmits.store(stripe.stats.received_retransmits, std::memory_order_relaxed);
    }
    if (now >= next_turn_away) {
      // One caller per stripe: a second one with the same index is closed unheard.
      next_turn_away = now + std::chrono::milliseconds(100);
      try {
        while (auto extra = stripe.listener.accept(std::chrono::milliseconds(0))) {
          srt_log()->warn("stream {}: closing {}: stripe {} is connected already", stream_,
                          extra->peer(), stripe.index);
        }
      } catch (const SrtError&) {
      }
    }
    if (io == SrtIo::timeout) continue;
    if (io == SrtIo::closed) {
      if (!stripe.ended) {
        srt_log()->warn("stream {} from {}: stripe {} lost before END", stream_, peer,
                        stripe.index);
        mark_broken();
      }
      break;
    }
    MessageHeader header;
    const auto bytes = std::span<const std::byte>(message).first(received);
    if (decode_header(bytes, header) != HeaderError::none ||
        header.payload_bytes != received - kHeaderBytes || header.stream_id != stream_) {
      counters_.checksum_errors.fetch_add(1, std::memory_order_relaxed);
      continue;
    }
    if (header.type == MessageType::chunk) {
      mine.bytes.fetch_add(header.payload_bytes, std::memory_order_relaxed);
      if (!on_chunk_(header, bytes.subspan(kHeaderBytes))) {
        mark_broken();
        break;
      }
    } else if (header.type == MessageType::end && !stripe.ended) {
      // Everything this stripe carried is in (SRT delivers in order); its socket stays open
      // (the sender repeats END on it) until the session ends.
      std::lock_guard lock(mutex_);
      stripe.ended = true;
      changed_.notify_all();
    }
  }
  mine.state.store(stripe.ended ? StreamState::finished : StreamState::failed,
                   std::memory_order_relaxed);
  std::lock_guard lock(mutex_);
  stripe.stats = socket->stats();
}

}  // namespace hdstream
