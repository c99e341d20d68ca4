#include "transport/admission.hpp"

#include <fmt/format.h>

#include "common/log.hpp"
#include "common/units.hpp"

namespace hdstream {

Admission::Admission(const ReceiverOptions& options, StatsRegistry& stats, FrameConsumer& consumer,
                     std::size_t idle_frames, std::string component)
    : streams_(options.streams),
      component_(std::move(component)),
      merge_(consumer, stats, {.streams = options.streams, .skew = options.skew}),
      memory_(options.max_memory_bytes, options.streams, idle_frames, component_),
      // Capacity probes (`check`) reserve from a budget of their own, of the same size: a
      // stranger's probes never take memory a feed needs.
      probe_memory_(options.max_memory_bytes, options.streams, 2, component_),
      max_probes_(max_capacity_probes(options.streams)) {}

Admission::~Admission() = default;

std::variant<Admission::Session, Admission::Refusal> Admission::admit(
    std::uint16_t stream, const Hello& hello, const ReassemblerConfig& config, std::size_t readers,
    const std::string& peer) {
  Refusal refusal;
  if (stream >= streams_) {
    refusal.status = AckStatus::bad_stream;
    refusal.reason = fmt::format("this receiver serves streams 0..{}", streams_ - 1);
    return refusal;
  }
  // A probe takes none of the stream's place: it may run beside the feed that holds it.
  const bool probe = is_capacity_probe(hello);
  if (probe) {
    std::lock_guard lock(mutex_);
    if (probes_running_ >= max_probes_) {
      refusal.status = AckStatus::stream_busy;
      refusal.reason = capacity_probes_busy(max_probes_);
      return refusal;
    }
    ++probes_running_;
  } else if (refusal.status = merge_.claim(stream, hello, refusal.reason);
             refusal.status != AckStatus::accepted) {
    return refusal;
  }
  // A leg of a protected feed also reserves the frames the merge may hold for it.
  FrameMemory& memory = memory_for(probe);
  auto reservation = memory.admit(probe ? config : merge_.reserved_config(hello, config), readers,
                                  peer, stream, refusal.reason, hello.legs);
  if (!reservation) {
    release(stream, hello.leg, probe);
    refusal.status = AckStatus::bad_request;
    refusal.logged = true;
    return refusal;
  }
  auto measured =
      probe ? std::make_unique<CapacityProbe>(logger(component_), stream, peer) : nullptr;
  StreamCounters& counters = probe ? measured->counters() : merge_.counters(stream, hello);
  return Session(*this, stream, hello.leg, peer, std::move(measured), counters,
                 merge_.leg(hello.leg), memory, std::move(*reservation));
}

void Admission::release(std::uint16_t stream, std::uint8_t leg, bool probe) {
  if (!probe) {
    merge_.release(stream, leg);
    return;
  }
  std::lock_guard lock(mutex_);
  --probes_running_;
}

Admission::Session::Session(Admission& owner, std::uint16_t stream, std::uint8_t leg,
                            std::string peer, std::unique_ptr<CapacityProbe> probe,
                            StreamCounters& counters, FrameConsumer& consumer, FrameMemory& memory,
                            MemoryReservation reservation)
    : owner_(&owner),
      stream_(stream),
      leg_(leg),
      peer_(std::move(peer)),
      probe_(std::move(probe)),
      counters_(&counters),
      consumer_(&consumer),
      memory_(&memory),
      reservation_(std::move(reservation)) {}

Admission::Session::Session(Session&& other) noexcept
    : owner_(std::exchange(other.owner_, nullptr)),
      released_(other.released_),
      stream_(other.stream_),
      leg_(other.leg_),
      peer_(std::move(other.peer_)),
      probe_(std::move(other.probe_)),
      counters_(other.counters_),
      consumer_(other.consumer_),
      memory_(other.memory_),
      reservation_(std::move(other.reservation_)) {}

Admission::Session::~Session() {
  release();
}

void Admission::Session::release() {
  if (!owner_ || released_) return;
  released_ = true;
  reservation_.reset();  // before the place is free: the next session reserves afresh
  owner_->release(stream_, leg_, probe());
}

void Admission::Session::started(const Hello& hello, std::string_view how) {
  if (probe_) {
    probe_->started(hello, how);
    return;
  }
  const AudioFormat& audio = hello.feed.audio;
  logger(owner_->component_)
      ->info("stream {}: feed from {} accepted {} ({} {}x{} @ {:.2f} fps, {}{})", stream_, peer_,
             how, to_string(hello.feed.codec), hello.feed.width, hello.feed.height,
             hello.feed.frames_per_second(),
             audio.present()
                 ? fmt::format("{} channels of {}-bit sound, ", audio.channels, audio.bits)
                 : std::string(),
             format_rate(static_cast<double>(hello.feed.bit_rate_bps)));
  counters_->planned_bps.store(hello.feed.bit_rate_bps, std::memory_order_relaxed);
  counters_->latency_budget_ms.store(hello.latency_budget_ms, std::memory_order_relaxed);
  counters_->state.store(StreamState::running, std::memory_order_relaxed);
  consumer_->session_started(stream_, hello);
}

void Admission::Session::ended(bool clean, std::uint64_t next_seq) {
  counters_->state.store(clean ? StreamState::finished : StreamState::failed,
                         std::memory_order_relaxed);
  if (probe_) {
    probe_->ended(clean);
  } else {
    consumer_->session_ended(stream_, clean, next_seq);
  }
}

}  // namespace hdstream
