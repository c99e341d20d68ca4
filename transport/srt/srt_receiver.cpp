#include "transport/srt/srt_receiver.hpp"

#include <algorithm>

#include "transport/capacity_probe.hpp"
#include "transport/srt/srt_receive_session.hpp"
#include "transport/srt/srt_stripes.hpp"

namespace hdstream {
SrtReceiver::SrtReceiver(ReceiverOptions options, StatsRegistry& stats, FrameConsumer& consumer)
    : options_(std::move(options)),
      admission_(options_, stats, consumer, 4 * options_.streams + 8, "srt") {}

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
  socket_plan_.max_buffered_bytes = admission_.memory_for(/*probe=*/false).budget().limit_bytes() /
                                    std::max<std::size_t>(1, options_.streams);
  const SrtPlan& plan = socket_plan_;
  // A lane per leg: leg B of a protected feed runs beside leg A on the stream's port.
  listeners_.start(
      plan, options_.listen, options_.streams, kMaxLegs,
      [this](std::uint16_t stream, std::uint8_t leg, SrtSocket& socket) {
        Session(*this, stream, leg, socket, /*announced_probe=*/false).run();
      },
      [this](std::uint16_t stream, std::uint8_t leg, SrtSocket& socket) {
        Session(*this, stream, leg, socket, /*announced_probe=*/true).run();
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

void SrtReceiver::log_refusal(const std::string& peer, std::uint16_t stream, bool probe,
                              AckStatus status, const std::string& reason) {
  // With a passphrase libsrt admitted only callers that have it: an operator's own sender is
  // never left without the reason.
  const auto held_back =
      options_.srt.passphrase.empty() ? stranger_lines_.admit() : std::optional<std::uint64_t>(0);
  if (held_back) {
    srt_log()->warn("refused {} from {} (stream {}): {}: {}{}", probe ? "capacity probe" : "feed",
                    peer, stream, to_string(status), reason, held_back_note(*held_back));
  }
}

void SrtReceiver::log_closing(const std::string& peer, std::uint16_t stream,
                              const std::string& why) {
  if (auto held_back = stranger_lines_.admit()) {
    srt_log()->warn("stream {}: closing {}: {}{}", stream, peer, why, held_back_note(*held_back));
  }
}

}  // namespace hdstream
