#include "transport/srt/srt_receive_session.hpp"

#include <algorithm>

#include <fmt/ranges.h>

#include "common/clock.hpp"
#include "common/log.hpp"
#include "common/provenance.hpp"
#include "transport/capacity_probe.hpp"
#include "transport/mtcp/mtcp_scheduler.hpp"
#include "transport/srt/srt_link.hpp"
#include "transport/srt/srt_stripes.hpp"

namespace hdstream {
namespace {

char leg_name(std::uint8_t leg) {
  return static_cast<char>('A' + leg);
}

// Far-end feedback rides back on the same (bidirectional) SRT connection, one packet: the
// newest transit samples that fit beside the header and the fixed body, FEC filter or not.
constexpr std::size_t kTransitsPerPacket =
    (kSrtMaxPayloadBytes - kSrtFecHeaderBytes - kHeaderBytes - kFeedbackExtendedBytes) /
    kFeedbackTransitBytes;

}  // namespace

SrtReceiver::Session::Session(SrtReceiver& owner, std::uint16_t stream, std::uint8_t announced_leg,
                              SrtSocket& socket, bool announced_probe)
    : owner_(owner),
      stream_(stream),
      announced_leg_(announced_leg),
      socket_(socket),
      announced_probe_(announced_probe),
      peer_(socket.peer()) {}

SrtReceiver::Session::~Session() = default;

HelloIntake SrtReceiver::Session::read_hello() {
  const auto deadline = std::chrono::steady_clock::now() + owner_.options_.handshake_timeout;
  while (!owner_.stopped() && std::chrono::steady_clock::now() < deadline) {
    const SrtIo io = socket_.receive(message_, received_);
    if (io == SrtIo::timeout) continue;
    if (io == SrtIo::closed) return {};
    auto intake =
        examine_hello(std::span<const std::byte>(message_).first(received_), TransportKind::srt);
    if (intake.hello) {
      intake.reason = wire_refusal(intake.stream_id, *intake.hello, intake.status);
      if (!intake.reason.empty()) intake.hello.reset();
    }
    return intake;
  }
  return {.reason = owner_.stopped() ? std::string() : std::string("no handshake")};
}

std::string SrtReceiver::Session::wire_refusal(std::uint16_t stream_id, const Hello& hello,
                                               AckStatus& status) const {
  status = AckStatus::bad_request;
  // 1408 bytes, or 1404 with a packet filter (FEC) in force.
  if (const int room = socket_.payload_bytes() - static_cast<int>(kHeaderBytes);
      hello.chunk_bytes > static_cast<std::uint32_t>(std::max(room, 0))) {
    return fmt::format("chunks of {} bytes do not fit this connection's SRT messages (at most {})",
                       hello.chunk_bytes, room);
  }
  // What the caller announced in its stream id decided where it is served: it may not become
  // something else.
  if (stream_id != stream_) {
    status = AckStatus::bad_stream;
    return fmt::format("UDP port {} carries stream {}, not {}", socket_.local_port(), stream_,
                       stream_id);
  }
  if (announced_probe_ && !is_capacity_probe(hello)) {
    return "the SRT stream id announced a capacity probe, the HELLO a feed";
  }
  if (hello.leg != announced_leg_) {
    return fmt::format("the SRT stream id announced leg {}, the HELLO leg {}",
                       leg_name(announced_leg_), leg_name(hello.leg));
  }
  if (hello.connections > 1) {
    if (std::string refusal = owner_.striped_refusal(stream_, hello); !refusal.empty()) {
      return refusal;
    }
  }
  status = AckStatus::accepted;
  return {};
}

ReassemblerConfig SrtReceiver::Session::reassembler_config(const Hello& hello) const {
  ReassemblerConfig config = hdstream::reassembler_config(hello);
  config.max_frames_in_flight = owner_.options_.max_frames_in_flight;
  if (hello.connections > 1) {
    config.latency_budget_ns = std::int64_t{hello.latency_budget_ms} * 1'000'000;
    config.max_frames_in_flight =
        std::max(config.max_frames_in_flight,
                 mtcp_window_frames(hello.latency_budget_ms, hello.feed.frames_per_second()));
  }
  return config;
}

bool SrtReceiver::Session::run() {
  auto intake = read_hello();
  if (!intake.hello) {
    if (intake.reply) {
      owner_.log_refusal(peer_, stream_, announced_probe_, intake.status, intake.reason);
      refuse(intake.status, intake.reason);
    } else if (!intake.reason.empty()) {
      owner_.log_closing(peer_, stream_, intake.reason);
    }
    return false;
  }
  hello_ = *intake.hello;
  config_ = reassembler_config(hello_);
  auto admitted = owner_.admission_.admit(stream_, hello_, config_, /*readers=*/0, peer_);
  if (auto* refused = std::get_if<Admission::Refusal>(&admitted)) {
    if (!refused->logged) {
      owner_.log_refusal(peer_, stream_, is_capacity_probe(hello_), refused->status,
                         refused->reason);
    }
    refuse(refused->status, refused->reason);
    return false;
  }
  admitted_.emplace(std::move(std::get<Admission::Session>(admitted)));
  if (std::string refusal; hello_.connections > 1 && !open_stripes(refusal)) {
    admitted_.reset();
    refuse(AckStatus::bad_request, refusal);
    return false;
  }
  const auto ack = encode_hello_ack(
      stream_, HelloAck{AckStatus::accepted, receiver_identity(),
                        stripes_ ? stripes_->ports() : std::vector<std::uint16_t>{}});
  if (socket_.send(ack) != SrtIo::ok) return false;

  const std::string filter = socket_.packet_filter();
  admitted_->started(hello_, fmt::format("over SRT{}{}{}",
                                         stripes_ ? fmt::format(", striped over {} connections "
                                                                "(stripe ports {})",
                                                                hello_.connections,
                                                                fmt::join(stripes_->ports(), ", "))
                                                  : std::string(),
                                         filter.empty() ? "" : ", packet filter ", filter));
  reassembler_.emplace(stream_, config_, admitted_->memory().pool());
  publisher_.emplace(srt_log(), stream_,
                     stripes_ ? fmt::format("given up (missing beyond the {} ms latency budget)",
                                            hello_.latency_budget_ms)
                              : std::string("incomplete (SRT dropped packets too late to play)"));
  StreamCounters& counters = admitted_->counters();
  if (stripes_) {
    counters.striped.subconnections[0].state.store(StreamState::running, std::memory_order_relaxed);
    stripes_->start();
  }

  const bool clean = receive();
  if (stripes_) stripes_->stop();
  const SrtStats last_stats = srt_stats();
  stripes_.reset();  // joins the stripes' threads: the reassembler is this thread's alone again
  if (!clean) reassembler_->abandon();
  deliver();
  publish_srt_stats(last_stats, /*sender=*/false, counters);
  if (clean) send_last_report();
  socket_.close();  // after a clean end the sender has closed first, having the last report
  if (hello_.connections > 1) {
    counters.striped.subconnections[0].state.store(clean ? StreamState::finished : StreamState::failed,
                                                std::memory_order_relaxed);
  }
  admitted_->ended(clean, reassembler_->next_seq());
  return clean;
}

bool SrtReceiver::Session::open_stripes(std::string& refusal) {
  try {
    stripes_ = std::make_unique<SrtStripeGroup>(
        owner_.socket_plan_, owner_.options_.listen,
        owner_.stripe_ports(stream_, hello_.connections), stream_, hello_,
        owner_.options_.handshake_timeout, admitted_->counters(),
        [this](const MessageHeader& header, std::span<const std::byte> payload) {
          std::lock_guard lock(intake_);
          if (reassembler_->push(header, payload, wall_clock_ns()) == ChunkResult::too_large) {
            admitted_->memory().frame_too_large(peer_, stream_, header, config_);
            return false;
          }
          deliver();
          return true;
        });
    return true;
  } catch (const SrtError& error) {
    refusal = fmt::format("cannot open the stripes' UDP ports: {}", error.what());
    owner_.log_refusal(peer_, stream_, /*probe=*/false, AckStatus::bad_request, refusal);
    return false;
  }
}

void SrtReceiver::Session::refuse(AckStatus status, const std::string& reason) {
  if (socket_.send(encode_hello_ack(stream_, HelloAck{status, reason, {}})) != SrtIo::ok) return;
  const auto deadline = std::chrono::steady_clock::now() + owner_.options_.handshake_timeout;
  while (!owner_.stopped() && std::chrono::steady_clock::now() < deadline &&
         socket_.receive(message_, received_) != SrtIo::closed) {
  }
}

void SrtReceiver::Session::deliver() {
  deliver_ready_frames(*reassembler_, wall_clock_ns(), admitted_->capacity_probe(),
                       admitted_->consumer(), stream_, *publisher_, admitted_->counters());
}

SrtStats SrtReceiver::Session::srt_stats() {
  SrtStats stats = socket_.stats();
  if (stripes_) add_srt_stats(stats, stripes_->stats());
  return stats;
}

std::vector<std::byte> SrtReceiver::Session::report(bool last) {
  return encode_feedback(
      stream_, feedback_meter_.take(admitted_->counters(), wall_clock_ns(), kTransitsPerPacket),
      last);
}

bool SrtReceiver::Session::receive() {
  StreamCounters& counters = admitted_->counters();
  auto next_stats = std::chrono::steady_clock::now();
  auto next_feedback = next_stats + kFeedbackInterval;
  while (!owner_.stopped()) {
    const SrtIo io = socket_.receive(message_, received_);
    const auto now = std::chrono::steady_clock::now();
    if (now >= next_stats) {
      next_stats += std::chrono::milliseconds(250);
      publish_srt_stats(srt_stats(), /*sender=*/false, counters);
    }
    if (now >= next_feedback && io != SrtIo::closed) {
      next_feedback = now + kFeedbackInterval;
      socket_.send(report(/*last=*/false));
    }
    if (stripes_ && stripes_->broken()) return false;  // logged by the stripe: the sender re-opens
    if (io == SrtIo::timeout) continue;
    if (io == SrtIo::closed) {
      srt_log()->warn("stream {} from {}: SRT connection lost before END", stream_, peer_);
      return false;
    }
    MessageHeader header;
    const auto bytes = std::span<const std::byte>(message_).first(received_);
    if (const HeaderError error = decode_header(bytes, header);
        error != HeaderError::none || header.payload_bytes != received_ - kHeaderBytes) {
      // One bad datagram does not desynchronise a message transport: count it, carry on.
      counters.checksum_errors.fetch_add(1, std::memory_order_relaxed);
      continue;
    }
    const auto payload = bytes.subspan(kHeaderBytes);
    if (header.type == MessageType::chunk) {
      if (stripes_) {
        counters.striped.subconnections[0].bytes.fetch_add(header.payload_bytes,
                                                        std::memory_order_relaxed);
      }
      std::lock_guard lock(intake_);
      if (reassembler_->push(header, payload, wall_clock_ns()) == ChunkResult::too_large) {
        admitted_->memory().frame_too_large(peer_, stream_, header, config_);
        return false;
      }
      deliver();
      continue;
    }
    if (header.type == MessageType::end) {
      const auto end = decode_end(payload);
      // A striped feed has ended once every stripe has read its END: each one's chunks are in.
      const auto stripes_deadline = std::chrono::steady_clock::now() +
                                    owner_.options_.handshake_timeout +
                                    std::chrono::milliseconds(hello_.latency_budget_ms);
      if (end &&
          (!stripes_ || stripes_->wait_ended(stripes_deadline, owner_.listeners_.stopped()))) {
        std::lock_guard lock(intake_);
        reassembler_->finish(end->frames_sent);
        return true;
      }
      if (end && !owner_.stopped()) {
        srt_log()->warn("stream {} from {}: END on stripe 0, but not on every stripe", stream_,
                        peer_);
      }
      return false;
    }
  }
  return false;
}

void SrtReceiver::Session::send_last_report() {
  // The last report carries the final counts. SRT hands it to the sender only at its play time
  // (send time + latency), so the sender, not this side, closes once it has it. Like END, it is
  // repeated until then: lost, no later packet would show the gap, and the sender would wait out
  // its deadline and fail a feed that arrived whole.
  const auto last_report = report(/*last=*/true);
  const auto deadline = std::chrono::steady_clock::now() + owner_.options_.handshake_timeout;
  auto repeat_at = std::chrono::steady_clock::now();
  while (!owner_.stopped() && std::chrono::steady_clock::now() < deadline) {
    if (const auto now = std::chrono::steady_clock::now(); now >= repeat_at) {
      if (socket_.send(last_report) == SrtIo::closed) break;
      repeat_at = now + kSrtLastMessageRepeat;
    }
    if (socket_.receive(message_, received_) == SrtIo::closed) break;
  }
}

}  // namespace hdstream
