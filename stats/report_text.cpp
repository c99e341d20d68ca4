#include "stats/report_text.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace hdstream {

void write_interval_text(std::ostream& out, const Snapshot& snapshot) {
  for (const auto& s : snapshot.streams) {
    fmt::print(out,
               "{:7.1f}s {} #{:<2} {:<4} {:<8} {:8.1f} Mbps  frames {:>7}  drops {:>4}  "
               "cksum {:>3}  jitter {:6.2f} ms  rtt {:7.2f} ms  retx {}\n",
               snapshot.t, to_string(snapshot.role), s.stream, s.transport, to_string(s.state),
               s.mbps, s.frames, s.drops, s.checksum_errors, s.jitter_ms, s.rtt_ms, s.retransmits);
    for (const auto& sub : s.striped.subconnections) {
      fmt::print(out,
                 "{:7.1f}s     conn {:<2} {:<8}           {:8.1f} Mbps  rtt {:7.2f} ms  retx {}  "
                 "reconnects {}\n",
                 snapshot.t, sub.index, to_string(sub.state), sub.mbps, sub.rtt_ms, sub.retransmits,
                 sub.reconnects);
    }
    if (s.striped.present || s.srt.present) {
      fmt::print(out,
                 "{:7.1f}s     link:   resent {}  duplicates {}  lost pkts {}  dropped pkts {}  "
                 "belated {}  buffer {:.1f} ms\n",
                 snapshot.t, s.striped.resent_chunks, s.striped.duplicate_chunks, s.srt.lost_packets,
                 s.srt.dropped_packets, s.srt.belated_packets, s.srt.buffer_ms);
    }
    if (s.srt.fec_packets > 0 || s.srt.fec_recovered > 0 || s.srt.fec_uncorrectable > 0) {
      fmt::print(out, "{:7.1f}s     fec:    packets {}  recovered {}  uncorrectable {}\n",
                 snapshot.t, s.srt.fec_packets, s.srt.fec_recovered, s.srt.fec_uncorrectable);
    }
    if (s.protection.present) write_protection_text(out, fmt::format("{:7.1f}s", snapshot.t), s);
    if (s.far_end.valid) {
      fmt::print(out,
                 "{:7.1f}s     far end:          frames {:>7}  drops {:>4}  cksum {:>3}  jitter "
                 "{:6.2f} ms  fps {:6.2f}  latency {:7.2f} ms\n",
                 snapshot.t, s.far_end.frames, s.far_end.drops, s.far_end.checksum_errors,
                 s.far_end.jitter_ms, s.far_end.fps, s.far_end.latency_ms);
    }
    if (s.outages > 0) write_outage_text(out, snapshot.t, s);
    if (s.media) {
      fmt::print(out,
                 "{:7.1f}s {} #{:<2} media    decoded {:>7}  errors {:>3}  queue {}/{}  "
                 "dropped before decode {:>4}  latency p50 {:.2f} ms  p99 {:.2f} ms\n",
                 snapshot.t, to_string(snapshot.role), s.stream, s.frames_decoded, s.decode_errors,
                 s.decode_queue_depth, s.decode_queue_capacity, s.dropped_before_decode,
                 s.latency_ms_p50, s.latency_ms_p99);
    }
  }
  fmt::print(out, "{:7.1f}s {} all {:>2} streams     {:8.1f} Mbps  drops {}\n", snapshot.t,
             to_string(snapshot.role), snapshot.streams.size(), snapshot.aggregate_mbps(),
             snapshot.aggregate_drops());
}

void write_protection_text(std::ostream& out, const std::string& prefix, const StreamSnapshot& s) {
  const ProtectionSnapshot& p = s.protection;
  fmt::print(out, "{}     protect: legs up {}/{}  protected {}  skew {:.1f} ms\n", prefix,
             p.legs_up, p.legs.size(), p.protected_frames, p.skew_ms);
  for (const auto& leg : p.legs) {
    fmt::print(out,
               "{}     leg {}:  {:<8} {:8.1f} Mbps  frames {:>7}  drops {:>4}  rtt {:7.2f} ms  "
               "retx {}  only it {}\n",
               prefix, static_cast<char>('A' + leg.leg), to_string(leg.state), leg.mbps, leg.frames,
               leg.drops, leg.rtt_ms, leg.retransmits, leg.only_frames);
  }
}

void write_final_protection_text(std::ostream& out, Role role, const StreamSnapshot& s) {
  write_protection_text(out, fmt::format("final   {} #{:<2}", to_string(role), s.stream), s);
}

void write_outage_text(std::ostream& out, double t, const StreamSnapshot& s) {
  fmt::print(out, "{:7.1f}s     outages: {}  {:.1f} s without a session  frames lost {}{}\n", t,
             s.outages, s.outage_s, s.outage_frames_lost,
             s.state == StreamState::waiting ? "  (cut off now)" : "");
}

void write_final_media_text(std::ostream& out, Role role, const StreamSnapshot& s) {
  fmt::print(out,
             "final   {} #{:<2} media    decoded {:>7}  errors {:>3}  dropped before decode "
             "{:>4}  latency p50 {:.2f} ms  p99 {:.2f} ms  recorded {} (dropped before "
             "record {})\n",
             to_string(role), s.stream, s.frames_decoded, s.decode_errors, s.dropped_before_decode,
             s.latency_ms_p50, s.latency_ms_p99, s.frames_recorded, s.dropped_before_record);
}

void write_final_far_end_text(std::ostream& out, Role role, const StreamSnapshot& s) {
  fmt::print(out,
             "final   {} #{:<2} far end  frames {:>7}  drops {:>4}  cksum {:>3}  jitter "
             "{:6.2f} ms  latency {:7.2f} ms\n",
             to_string(role), s.stream, s.far_end.frames, s.far_end.drops,
             s.far_end.checksum_errors, s.far_end.jitter_ms, s.far_end.latency_ms);
}

void write_final_outage_text(std::ostream& out, const Snapshot& snapshot, const StreamSnapshot& s) {
  fmt::print(out, "final   {} #{:<2} ", to_string(snapshot.role), s.stream);
  write_outage_text(out, snapshot.t, s);
}

void write_summary_text(std::ostream& out, const Summary& summary) {
  fmt::print(out,
             "summary {}: {} streams, {:.2f} s, {} bytes, {} frames, {:.1f} Mbps, {} drops, {} "
             "checksum errors: {}\n",
             to_string(summary.role), summary.streams, summary.duration_s, summary.bytes,
             summary.frames, summary.mbps, summary.drops, summary.checksum_errors,
             summary.pass ? "PASS" : "FAIL");
  for (const auto& reason : summary.reasons) fmt::print(out, "  fail: {}\n", reason);
}

void write_latency_text(std::ostream& out, Role role, const LatencySummary& latency) {
  fmt::print(out,
             "latency {}: {} frames, frame ready -> received whole p50 {:.3f} ms, p99 {:.3f} "
             "ms, max {:.3f} ms\n",
             to_string(role), latency.frames, latency.p50_ms, latency.p99_ms, latency.max_ms);
}

}  // namespace hdstream
