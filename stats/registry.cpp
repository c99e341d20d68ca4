#include "stats/registry.hpp"

#include "common/clock.hpp"
#include "common/units.hpp"

namespace hdstream {

std::string_view to_string(StreamState state) {
  switch (state) {
    case StreamState::waiting:
      return "waiting";
    case StreamState::running:
      return "running";
    case StreamState::finished:
      return "finished";
    case StreamState::failed:
      return "failed";
    case StreamState::invalid:
      break;
  }
  return "invalid";
}

namespace {

ProtectionSnapshot read_protection(const StreamCounters& feed,
                                   const std::array<const StreamCounters*, 2>& legs) {
  const ProtectionCounters& p = feed.protection;
  ProtectionSnapshot snapshot;
  snapshot.present = p.present.load(std::memory_order_relaxed);
  if (!snapshot.present) return snapshot;
  snapshot.protected_frames = p.protected_frames.load(std::memory_order_relaxed);
  snapshot.legs_up = p.legs_up.load(std::memory_order_relaxed);
  snapshot.skew_ms = p.skew_ms.load(std::memory_order_relaxed);
  for (std::size_t i = 0; i < legs.size(); ++i) {
    const StreamCounters& c = *legs[i];
    LegSnapshot leg;
    leg.leg = static_cast<std::uint8_t>(i);
    leg.state = c.state.load(std::memory_order_relaxed);
    leg.bytes = c.bytes.load(std::memory_order_relaxed);
    leg.frames = c.frames.load(std::memory_order_relaxed);
    leg.drops = c.drops.load(std::memory_order_relaxed);
    leg.rtt_ms = c.rtt_ms.load(std::memory_order_relaxed);
    leg.retransmits = c.retransmits.load(std::memory_order_relaxed);
    leg.only_frames = p.only_frames[i].load(std::memory_order_relaxed);
    snapshot.legs.push_back(leg);
  }
  return snapshot;
}

}  // namespace

std::string_view to_string(Role role) {
  return role == Role::send ? "send" : "recv";
}

double Snapshot::aggregate_mbps() const {
  double total = 0;
  for (const auto& s : streams) total += s.mbps;
  return total;
}

std::uint64_t Snapshot::aggregate_drops() const {
  std::uint64_t total = 0;
  for (const auto& s : streams) total += s.drops;
  return total;
}

StatsRegistry::StatsRegistry(Role role, std::size_t streams, std::string transport)
    : role_(role),
      transport_(std::move(transport)),
      streams_(streams),
      legs_(2 * streams),
      start_(std::chrono::steady_clock::now()),
      previous_time_(start_),
      previous_bytes_(streams, 0),
      previous_subconnection_bytes_(streams),
      previous_leg_bytes_(2 * streams, 0) {}

std::vector<TransitSample> StatsRegistry::take_transits(std::size_t stream) {
  return streams_.at(stream).far_end.transits.take();
}

Snapshot StatsRegistry::read() const {
  const auto now = std::chrono::steady_clock::now();
  const std::int64_t now_ns = wall_clock_ns();
  Snapshot snapshot;
  snapshot.t = std::chrono::duration<double>(now - start_).count();
  snapshot.role = role_;
  snapshot.streams.reserve(streams_.size());
  for (std::size_t i = 0; i < streams_.size(); ++i) {
    const StreamCounters& c = streams_[i];
    StreamSnapshot s;
    s.stream = static_cast<std::uint16_t>(i);
    s.transport = transport_;
    s.state = c.state.load(std::memory_order_relaxed);
    s.bytes = c.bytes.load(std::memory_order_relaxed);
    s.frames = c.frames.load(std::memory_order_relaxed);
    s.drops = c.drops.load(std::memory_order_relaxed);
    s.checksum_errors = c.checksum_errors.load(std::memory_order_relaxed);
    s.retransmits = c.retransmits.load(std::memory_order_relaxed);
    s.segments_sent = c.segments_sent.load(std::memory_order_relaxed);
    s.planned_bps = c.planned_bps.load(std::memory_order_relaxed);
    s.jitter_ms = c.jitter_ms.load(std::memory_order_relaxed);
    s.rtt_ms = c.rtt_ms.load(std::memory_order_relaxed);
    s.first_frame_ns = c.first_frame_ns.load(std::memory_order_relaxed);
    s.last_frame_ns = c.last_frame_ns.load(std::memory_order_relaxed);
    s.latency_ms = c.latency_ms.load(std::memory_order_relaxed);
    s.latency_budget_ms = c.latency_budget_ms.load(std::memory_order_relaxed);
    s.outages = c.outage.count.load(std::memory_order_relaxed);
    s.outage_s = c.outage.seconds(now_ns);
    s.outage_frames_lost = c.outage.frames_lost.load(std::memory_order_relaxed);
    const auto& far = c.far_end;
    const std::int64_t received_ns = far.received_ns.load(std::memory_order_relaxed);
    if (received_ns != 0) {
      s.far_end.valid = true;
      s.far_end.bytes = far.bytes.load(std::memory_order_relaxed);
      s.far_end.frames = far.frames.load(std::memory_order_relaxed);
      s.far_end.drops = far.drops.load(std::memory_order_relaxed);
      s.far_end.checksum_errors = far.checksum_errors.load(std::memory_order_relaxed);
      s.far_end.jitter_ms = far.jitter_ms.load(std::memory_order_relaxed);
      s.far_end.fps = far.fps.load(std::memory_order_relaxed);
      s.far_end.latency_ms = far.latency_ms.load(std::memory_order_relaxed);
      s.far_end.reports = far.reports.load(std::memory_order_relaxed);
      s.far_end.age_ms = static_cast<double>(now_ns - received_ns) / 1e6;
      s.far_end.extended = far.extended.load(std::memory_order_relaxed);
      s.far_end.late_frames = far.late_frames.load(std::memory_order_relaxed);
      s.far_end.loss_events = far.loss_events.load(std::memory_order_relaxed);
      s.far_end.longest_loss_run = far.longest_loss_run.load(std::memory_order_relaxed);
      s.far_end.duplicate_chunks = far.duplicate_chunks.load(std::memory_order_relaxed);
      s.far_end.out_of_order_chunks = far.out_of_order_chunks.load(std::memory_order_relaxed);
      s.far_end.transits_dropped = far.transits.dropped();
    }
    s.far_end.receiver = far.receiver.get();  // known from the HELLO_ACK, before any report
    s.media = c.media.load(std::memory_order_relaxed);
    if (s.media) {
      s.frames_decoded = c.frames_decoded.load(std::memory_order_relaxed);
      s.decode_errors = c.decode_errors.load(std::memory_order_relaxed);
      s.dropped_before_decode = c.dropped_before_decode.load(std::memory_order_relaxed);
      s.decode_queue_depth = c.decode_queue_depth.load(std::memory_order_relaxed);
      s.decode_queue_capacity = c.decode_queue_capacity.load(std::memory_order_relaxed);
      s.frames_recorded = c.frames_recorded.load(std::memory_order_relaxed);
      s.dropped_before_record = c.dropped_before_record.load(std::memory_order_relaxed);
      s.audio_channels = c.audio_channels.load(std::memory_order_relaxed);
      s.audio_gaps = c.audio_gaps.load(std::memory_order_relaxed);
      s.audio_silence_samples = c.audio_silence_samples.load(std::memory_order_relaxed);
      s.audio_samples_played = c.audio_samples_played.load(std::memory_order_relaxed);
      s.audio_heard = c.audio_heard.load(std::memory_order_relaxed);
      if (s.audio_channels > 0) s.sound = c.sound_levels.get();
      if (c.av_offset_measured.load(std::memory_order_relaxed)) {
        s.av_offset_ms = static_cast<double>(c.av_offset_us.load(std::memory_order_relaxed)) / 1e3;
      }
      s.frozen = c.frozen.load(std::memory_order_relaxed);
      s.black = c.black.load(std::memory_order_relaxed);
      s.latency_ms_p50 = c.decode_latency.summary().p50_ms;
      s.latency_ms_p99 = c.decode_latency.summary().p99_ms;
    }
    const StripedCounters& striped = c.striped;
    s.striped.present = striped.present.load(std::memory_order_relaxed);
    s.striped.resent_chunks = striped.resent_chunks.load(std::memory_order_relaxed);
    s.striped.duplicate_chunks = striped.duplicate_chunks.load(std::memory_order_relaxed);
    for (std::size_t k = 0; k < striped.subconnections.size(); ++k) {
      const SubconnectionCounters& sc = striped.subconnections[k];
      const StreamState state = sc.state.load(std::memory_order_relaxed);
      if (state == StreamState::invalid) continue;
      SubconnectionSnapshot sub;
      sub.index = static_cast<std::uint8_t>(k);
      sub.state = state;
      sub.bytes = sc.bytes.load(std::memory_order_relaxed);
      sub.rtt_ms = sc.rtt_ms.load(std::memory_order_relaxed);
      sub.retransmits = sc.retransmits.load(std::memory_order_relaxed);
      sub.reconnects = sc.reconnects.load(std::memory_order_relaxed);
      s.striped.subconnections.push_back(sub);
    }
    const SrtCounters& srt = c.srt;
    s.srt.present = srt.present.load(std::memory_order_relaxed);
    s.srt.lost_packets = srt.lost_packets.load(std::memory_order_relaxed);
    s.srt.dropped_packets = srt.dropped_packets.load(std::memory_order_relaxed);
    s.srt.belated_packets = srt.belated_packets.load(std::memory_order_relaxed);
    s.srt.buffer_ms = srt.buffer_ms.load(std::memory_order_relaxed);
    s.srt.fec_packets = srt.fec_packets.load(std::memory_order_relaxed);
    s.srt.fec_recovered = srt.fec_recovered.load(std::memory_order_relaxed);
    s.srt.fec_uncorrectable = srt.fec_uncorrectable.load(std::memory_order_relaxed);
    s.protection = read_protection(c, {&legs_[2 * i], &legs_[2 * i + 1]});
    snapshot.streams.push_back(std::move(s));
  }
  return snapshot;
}

Snapshot StatsRegistry::sample() {
  std::lock_guard lock(sample_mutex_);
  Snapshot snapshot = read();
  const auto now = start_ + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                std::chrono::duration<double>(snapshot.t));
  const double interval_s = std::chrono::duration<double>(now - previous_time_).count();
  for (std::size_t i = 0; i < snapshot.streams.size(); ++i) {
    auto& s = snapshot.streams[i];
    s.mbps = megabits_per_second(s.bytes - previous_bytes_[i], interval_s);
    previous_bytes_[i] = s.bytes;
    for (auto& sub : s.striped.subconnections) {
      auto& previous = previous_subconnection_bytes_[i][sub.index];
      sub.mbps = megabits_per_second(sub.bytes - previous, interval_s);
      previous = sub.bytes;
    }
    for (auto& leg : s.protection.legs) {
      auto& previous = previous_leg_bytes_[2 * i + leg.leg];
      leg.mbps = megabits_per_second(leg.bytes - previous, interval_s);
      previous = leg.bytes;
    }
  }
  previous_time_ = now;
  return snapshot;
}

}  // namespace hdstream
