#include "transport/srt/srt_receiver.hpp"

#include <algorithm>
#include <mutex>

#include <fmt/ranges.h>

#include "common/clock.hpp"
#include "common/log.hpp"
#include "common/provenance.hpp"
#include "common/units.hpp"
#include "protocol/handshake.hpp"
#include "protocol/reassembler.hpp"
#include "transport/capacity_probe.hpp"
#include "transport/feedback.hpp"
#include "transport/mtcp/mtcp_scheduler.hpp"
#include "transport/reassembly_publisher.hpp"
#include "transport/srt/srt_link.hpp"
#include "transport/srt/srt_stripe_group.hpp"
#include "transport/srt/srt_stripes.hpp"

namespace hdstream {
namespace {

// One of the receiver's places for capacity probes, held for a session's life.
class ProbePlace {
 public:
  ProbePlace(std::atomic<std::size_t>& running, std::size_t max)
      : running_(running), held_(running.fetch_add(1) < max) {
    if (!held_) running_.fetch_sub(1);
  }
  ProbePlace(const ProbePlace&) = delete;
  ProbePlace& operator=(const ProbePlace&) = delete;
  ~ProbePlace() {
    if (held_) running_.fetch_sub(1);
  }
  bool held() const { return held_; }

 private:
  std::atomic<std::size_t>& running_;
  bool held_;
};

// A stream's place (or one leg's of its protected feed) that a session claimed through the
// merge, released when the session is over: after its session_ended and its memory (declare it
// before the reservation), so the next session finds both free.
class StreamClaim {
 public:
  StreamClaim(LegMerge& merge, std::uint16_t stream, std::uint8_t leg)
      : merge_(merge), stream_(stream), leg_(leg) {}
  StreamClaim(const StreamClaim&) = delete;
  StreamClaim& operator=(const StreamClaim&) = delete;
  ~StreamClaim() { merge_.release(stream_, leg_); }

 private:
  LegMerge& merge_;
  std::uint16_t stream_;
  std::uint8_t leg_;
};

char leg_name(std::uint8_t leg) {
  return static_cast<char>('A' + leg);
}

}  // namespace

SrtReceiver::SrtReceiver(ReceiverOptions options, StatsRegistry& stats, FrameConsumer& consumer)
    : options_(std::move(options)),
      merge_(consumer, stats, {.streams = options_.streams, .skew = options_.skew}),
      memory_(options_.max_memory_bytes, options_.streams, 4 * options_.streams + 8, "srt"),
      probe_memory_(options_.max_memory_bytes, options_.streams, 2, "srt") {}

SrtReceiver::~SrtReceiver() = default;

std::vector<std::uint16_t> SrtReceiver::stripe_ports(std::uint16_t stream,
                                                     std::size_t stripes) const {
  std::vector<std::uint16_t> ports;
  for (std::size_t stripe = 1; stripe < stripes; ++stripe) {
    ports.push_back(*srt_stripe_port(listeners_.base_port(), options_.streams, stream, stripe));
  }
  return ports;
}

std::string SrtReceiver::striped_refusal(std::uint16_t stream, const Hello& hello) const {
  if (hello.subconnection != 0) {
    const auto port =
        srt_stripe_port(listeners_.base_port(), options_.streams, stream, hello.subconnection);
    return fmt::format(
        "stripe {} of a striped feed connects to its own UDP port ({}), not the "
        "stream's",
        hello.subconnection, port ? std::to_string(*port) : "none");
  }
  if (is_capacity_probe(hello)) return "a capacity probe is one SRT connection, not stripes";
  if (hello.legs > 1) return "a feed over two paths (--dest-b) is not striped over srt";
  if (hello.session_id == 0) return "a striped feed without a session id";
  if (!srt_stripe_port(listeners_.base_port(), options_.streams, stream, hello.connections - 1)) {
    return fmt::format("{} stripes of stream {} would need UDP ports past 65535", hello.connections,
                       stream);
  }
  return {};
}

void SrtReceiver::start() {
  // An hdstream caller announces its rate, latency and RTT, and its connection's buffers are
  // sized for them (SrtSocket::listener); for a caller that announces nothing, for a 1 Gbps
  // feed at the configured latency. Stripe listeners are made from the same plan: the same
  // passphrase and FEC.
  socket_plan_ = srt_plan(1'000'000'000, options_.srt, std::chrono::milliseconds(1));
  // A caller announcing a huge rate and latency gets at most its stream's share of --max-memory
  // in libsrt's buffers.
  socket_plan_.max_buffered_bytes =
      memory_.budget().limit_bytes() / std::max<std::size_t>(1, options_.streams);
  const SrtPlan& plan = socket_plan_;
  // A lane per leg: leg B of a protected feed runs beside leg A on the stream's port.
  listeners_.start(
      plan, options_.listen, options_.streams, kMaxLegs,
      [this](std::uint16_t stream, std::uint8_t leg, SrtSocket& socket) {
        run_session(stream, leg, socket, false);
      },
      [this](std::uint16_t stream, std::uint8_t leg, SrtSocket& socket) {
        run_session(stream, leg, socket, true);
      });
  srt_log()->info("listening on UDP ports {}..{} for {} SRT stream(s){}", listeners_.base_port(),
                  listeners_.base_port() + options_.streams - 1, options_.streams,
                  options_.srt.passphrase.empty() ? "" : " (passphrase required)");
}

Endpoint SrtReceiver::local_endpoint() const {
  return listeners_.local_endpoint(options_.listen);
}

void SrtReceiver::stop() {
  listeners_.stop();
}

bool SrtReceiver::run_session(std::uint16_t stream, std::uint8_t announced_leg, SrtSocket& socket,
                              bool announced_probe) {
  const std::string peer = socket.peer();
  std::array<std::byte, 2048> message;
  std::size_t received = 0;

  // HELLO first, within the handshake timeout.
  std::optional<Hello> hello;
  std::string refusal;
  AckStatus status = AckStatus::bad_request;
  const auto deadline = std::chrono::steady_clock::now() + options_.handshake_timeout;
  while (!stopped() && std::chrono::steady_clock::now() < deadline) {
    const SrtIo io = socket.receive(message, received);
    if (io == SrtIo::timeout) continue;
    if (io == SrtIo::closed) return false;
    MessageHeader header;
    const auto bytes = std::span<const std::byte>(message).first(received);
    const HeaderError error = decode_header(bytes, header);
    if (error != HeaderError::none || header.type != MessageType::hello ||
        header.payload_bytes != received - kHeaderBytes) {
      srt_log()->warn("stream {}: closing {}: expected a HELLO ({})", stream, peer,
                      error == HeaderError::none ? "got another message" : to_string(error));
      return false;
    }
    hello = decode_hello(bytes.subspan(kHeaderBytes));
    if (!hello) {
      refusal = "malformed HELLO";
    } else if (refusal = validate_hello(*hello); !refusal.empty()) {
    } else if (hello->transport != TransportKind::srt) {
      refusal = fmt::format("this listener serves srt, not {}", to_string(hello->transport));
    } else if (const int room = socket.payload_bytes() - static_cast<int>(kHeaderBytes);
               hello->chunk_bytes > static_cast<std::uint32_t>(std::max(room, 0))) {
      // 1408 bytes, or 1404 with a packet filter (FEC) in force.
      refusal = fmt::format(
          "chunks of {} bytes do not fit this connection's SRT messages (at "
          "most {})",
          hello->chunk_bytes, room);
    } else if (header.stream_id != stream) {
      status = AckStatus::bad_stream;
      refusal = fmt::format("UDP port {} carries stream {}, not {}", socket.local_port(), stream,
                            header.stream_id);
    } else if (announced_probe && !is_capacity_probe(*hello)) {
      // Served beside the port's feed because it said it was a probe: it may not become a feed.
      refusal = "the SRT stream id announced a capacity probe, the HELLO a feed";
    } else if (hello->leg != announced_leg) {
      // Served on the lane of the leg it announced: it may not become the other leg.
      refusal = fmt::format("the SRT stream id announced leg {}, the HELLO leg {}",
                            leg_name(announced_leg), leg_name(hello->leg));
    } else if (hello->connections > 1) {
      refusal = striped_refusal(stream, *hello);
    }
    break;
  }
  // A probe takes none of the stream's slot, within the receiver's limit on probes; a feed (or
  // a leg of one) claims its stream through the merge.
  const bool probe = refusal.empty() && hello && is_capacity_probe(*hello);
  std::optional<ProbePlace> probe_place;
  std::optional<StreamClaim> claim;
  if (probe) {
    const std::size_t max_probes = max_capacity_probes(options_.streams);
    if (!probe_place.emplace(probes_running_, max_probes).held()) {
      status = AckStatus::stream_busy;
      refusal = capacity_probes_busy(max_probes);
    }
  } else if (refusal.empty() && hello) {
    status = merge_.claim(stream, *hello, refusal);
    if (status == AckStatus::accepted) claim.emplace(merge_, stream, hello->leg);
  }
  if (!hello && refusal.empty()) {
    if (!stopped()) srt_log()->warn("stream {}: closing {}: no handshake", stream, peer);
    return false;
  }
  // SRT delivers in order and drops what is too late to play: latency budget 0.
  ReassemblerConfig config;
  std::optional<MemoryReservation> memory;
  if (refusal.empty()) {
    config = reassembler_config(*hello);
    config.max_frames_in_flight = options_.max_frames_in_flight;
    if (hello->connections > 1) {
      // Stripes are K in-order connections: a frame's chunks on one may come a little after a
      // later frame's on another, so a gap is final only after the latency budget, as on mtcp.
      config.latency_budget_ns = std::int64_t{hello->latency_budget_ms} * 1'000'000;
      config.max_frames_in_flight =
          std::max(config.max_frames_in_flight,
                   mtcp_window_frames(hello->latency_budget_ms, hello->feed.frames_per_second()));
    }
    // A leg of a protected feed also reserves the frames the merge may hold for it.
    memory = memory_for(probe).admit(merge_.reserved_config(*hello, config), /*readers=*/0, peer,
                                     stream, refusal, hello->legs);  // logs a refusal
    if (!memory) {
      status = AckStatus::bad_request;
      claim.reset();
    }
  } else {
    srt_log()->warn("refused {} from {} (stream {}): {}",
                    hello && is_capacity_probe(*hello) ? "capacity probe" : "feed", peer, stream,
                    refusal);
  }
  // A striped feed's stripes 1 .. K-1 on ports of their own, opened for this session.
  std::mutex intake;  // one stripe at a time into the reassembler and the consumer
  std::unique_ptr<SrtStripeGroup> stripes;
  std::optional<Reassembler> reassembler;
  std::optional<ReassemblyPublisher> publisher;
  std::optional<CapacityProbe> measured_probe;  // a probe is measured in counters of its own
  StreamCounters* session_counters = nullptr;
  if (refusal.empty()) {
    session_counters = probe ? &measured_probe.emplace(srt_log(), stream, peer).counters()
                             // A leg of a protected feed counts in the leg's counters; the merge
                             // keeps the feed's.
                             : &merge_.counters(stream, *hello);
  }
  if (refusal.empty() && hello->connections > 1) {
    try {
      stripes = std::make_unique<SrtStripeGroup>(
          socket_plan_, options_.listen, stripe_ports(stream, hello->connections), stream, *hello,
          options_.handshake_timeout, *session_counters,
          [&](const MessageHeader& header, std::span<const std::byte> payload) {
            std::lock_guard lock(intake);
            if (reassembler->push(header, payload, wall_clock_ns()) == ChunkResult::too_large) {
              memory_for(probe).frame_too_large(peer, stream, header, config);
              return false;
            }
            deliver_ready_frames(*reassembler, wall_clock_ns(), nullptr, merge_.leg(hello->leg),
                                 stream, *publisher, *session_counters);
            return true;
          });
    } catch (const SrtError& error) {
      refusal = fmt::format("cannot open the stripes' UDP ports: {}", error.what());
      srt_log()->warn("refused feed from {} (stream {}): {}", peer, stream, refusal);
      status = AckStatus::bad_request;
      memory.reset();
      claim.reset();
    }
  }
  if (!refusal.empty()) {
    auto ack = encode_hello_ack(stream, HelloAck{status, refusal, {}});
    // SRT hands the refusal to the caller only at its play time, and a close before then loses
    // it: the caller closes once it has read it (for at most the handshake timeout).
    if (socket.send(ack) == SrtIo::ok) {
      const auto close_deadline = std::chrono::steady_clock::now() + options_.handshake_timeout;
      while (!stopped() && std::chrono::steady_clock::now() < close_deadline &&
             socket.receive(message, received) != SrtIo::closed) {
      }
    }
    return false;
  }
  auto ack =
      encode_hello_ack(stream, HelloAck{AckStatus::accepted, receiver_identity(),
                                        stripes ? stripes->ports() : std::vector<std::uint16_t>{}});
  if (socket.send(ack) != SrtIo::ok) return false;

  StreamCounters& counters = *session_counters;
  FrameConsumer& consumer = merge_.leg(hello->leg);
  if (probe) {
    measured_probe->started(*hello, "over SRT");
  } else {
    const std::string filter = socket.packet_filter();
    srt_log()->info(
        "stream {}: feed from {} accepted over SRT{} ({} {}x{} @ {:.2f} fps, {}{}{})", stream, peer,
        stripes ? fmt::format(", striped over {} connections (stripe ports {})", hello->connections,
                              fmt::join(stripes->ports(), ", "))
                : std::string(),
        to_string(hello->feed.codec), hello->feed.width, hello->feed.height,
        hello->feed.frames_per_second(), format_rate(static_cast<double>(hello->feed.bit_rate_bps)),
        filter.empty() ? "" : ", packet filter ", filter);
    counters.planned_bps.store(hello->feed.bit_rate_bps, std::memory_order_relaxed);
    counters.state.store(StreamState::running, std::memory_order_relaxed);
    consumer.session_started(stream, *hello);
  }

  reassembler.emplace(stream, config, memory_for(probe).pool());
  publisher.emplace(srt_log(), stream,
                    stripes ? fmt::format("given up (missing beyond the {} ms latency budget)",
                                          hello->latency_budget_ms)
                            : std::string("incomplete (SRT dropped packets too late to play)"));
  auto deliver = [&] {
    deliver_ready_frames(*reassembler, wall_clock_ns(), measured_probe ? &*measured_probe : nullptr,
                         consumer, stream, *publisher, counters);
  };
  if (stripes) {
    counters.mtcp.subconnections[0].state.store(StreamState::running, std::memory_order_relaxed);
    stripes->start();
  }
  auto srt_stats = [&] {
    SrtStats stats = socket.stats();
    if (stripes) add_srt_stats(stats, stripes->stats());
    return stats;
  };

  // Far-end feedback rides back on the same (bidirectional) SRT connection, one packet: the
  // newest transit samples that fit beside the header and the fixed body, FEC filter or not.
  FeedbackMeter feedback_meter;
  constexpr std::size_t kTransitsPerPacket =
      (kSrtMaxPayloadBytes - kSrtFecHeaderBytes - kHeaderBytes - kFeedbackExtendedBytes) /
      kFeedbackTransitBytes;
  auto report = [&](bool last) {
    return encode_feedback(
        stream, feedback_meter.take(counters, wall_clock_ns(), kTransitsPerPacket), last);
  };

  bool clean = false;
  auto next_stats = std::chrono::steady_clock::now();
  auto next_feedback = next_stats + kFeedbackInterval;
  while (!stopped()) {
    const SrtIo io = socket.receive(message, received);
    const auto now = std::chrono::steady_clock::now();
    if (now >= next_stats) {
      next_stats += std::chrono::milliseconds(250);
      publish_srt_stats(srt_stats(), /*sender=*/false, counters);
    }
    if (now >= next_feedback && io != SrtIo::closed) {
      next_feedback = now + kFeedbackInterval;
      socket.send(report(/*last=*/false));
    }
    if (stripes && stripes->broken()) break;  // logged by the stripe: the sender re-opens
    if (io == SrtIo::timeout) continue;
    if (io == SrtIo::closed) {
      srt_log()->warn("stream {} from {}: SRT connection lost before END", stream, peer);
      break;
    }
    MessageHeader header;
    const auto bytes = std::span<const std::byte>(message).first(received);
    if (const HeaderError error = decode_header(bytes, header);
        error != HeaderError::none || header.payload_bytes != received - kHeaderBytes) {
      // One bad datagram does not desynchronise a message transport: count it, carry on.
      counters.checksum_errors.fetch_add(1, std::memory_order_relaxed);
      continue;
    }
    const auto payload = bytes.subspan(kHeaderBytes);
    if (header.type == MessageType::chunk) {
      if (stripes) {
        counters.mtcp.subconnections[0].bytes.fetch_add(header.payload_bytes,
                                                        std::memory_order_relaxed);
      }
      std::lock_guard lock(intake);
      if (reassembler->push(header, payload, wall_clock_ns()) == ChunkResult::too_large) {
        memory_for(probe).frame_too_large(peer, stream, header, config);
        break;
      }
      deliver();
      continue;
    }
    if (header.type == MessageType::end) {
      auto end = decode_end(payload);
      // A striped feed has ended once every stripe has read its END: each one's chunks are in.
      const auto stripes_deadline = std::chrono::steady_clock::now() + options_.handshake_timeout +
                                    std::chrono::milliseconds(hello->latency_budget_ms);
      if (end && (!stripes || stripes->wait_ended(stripes_deadline, listeners_.stopped()))) {
        std::lock_guard lock(intake);
        reassembler->finish(end->frames_sent);
        clean = true;
      } else if (end && !stopped()) {
        srt_log()->warn("stream {} from {}: END on stripe 0, but not on every stripe", stream,
                        peer);
      }
      break;
    }
  }
  if (stripes) stripes->stop();
  const SrtStats last_stats = srt_stats();
  stripes.reset();  // joins the stripes' threads: the reassembler is this thread's alone again
  if (!clean) reassembler->abandon();
  deliver();
  publish_srt_stats(last_stats, /*sender=*/false, counters);
  if (clean) {
    // The last report carries the final counts. SRT hands it to the sender only at its play
    // time (send time + latency), so the sender, not this side, closes once it has it. Like
    // END, it is repeated until then: lost, no later packet would show the gap, and the sender
    // would wait out its deadline and fail a feed that arrived whole.
    const auto last_report = report(/*last=*/true);
    const auto close_deadline = std::chrono::steady_clock::now() + options_.handshake_timeout;
    auto repeat_at = std::chrono::steady_clock::now();
    while (!stopped() && std::chrono::steady_clock::now() < close_deadline) {
      if (const auto now = std::chrono::steady_clock::now(); now >= repeat_at) {
        if (socket.send(last_report) == SrtIo::closed) break;
        repeat_at = now + kSrtLastMessageRepeat;
      }
      if (socket.receive(message, received) == SrtIo::closed) break;
    }
  }
  socket.close();  // after a clean end the sender has closed first, having the last report
  if (probe) {
    measured_probe->ended(clean);
    return clean;
  }
  counters.state.store(clean ? StreamState::finished : StreamState::failed,
                       std::memory_order_relaxed);
  if (hello->connections > 1) {
    counters.mtcp.subconnections[0].state.store(clean ? StreamState::finished : StreamState::failed,
                                                std::memory_order_relaxed);
  }
  consumer.session_ended(stream, clean, reassembler->next_seq());
  return clean;
}

}  // namespace hdstream
