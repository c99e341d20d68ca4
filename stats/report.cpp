#include "stats/report.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "common/units.hpp"
#include "stats/json_fields.hpp"

namespace hdstream {
namespace {

double stream_duration_s(const StreamSnapshot& s) {
  if (s.frames == 0 || s.last_frame_ns <= s.first_frame_ns) return 0;
  const double span_s = static_cast<double>(s.last_frame_ns - s.first_frame_ns) / 1e9;
  // n frames span n-1 frame intervals; the run lasted n of them.
  return s.frames > 1 ? span_s * static_cast<double>(s.frames) / static_cast<double>(s.frames - 1)
                      : span_s;
}

}  // namespace

Summary summarize(const Snapshot& last, double min_rate_fraction) {
  Summary summary;
  summary.role = last.role;
  summary.streams = last.streams.size();
  double planned_mbps = 0;
  for (const auto& s : last.streams) {
    const double duration_s = stream_duration_s(s);
    summary.duration_s = std::max(summary.duration_s, duration_s);
    summary.bytes += s.bytes;
    summary.frames += s.frames;
    summary.drops += s.drops;
    summary.checksum_errors += s.checksum_errors;
    summary.decode_errors += s.decode_errors;
    summary.dropped_before_record += s.dropped_before_record;
    summary.mbps += megabits_per_second(s.bytes, duration_s);
    planned_mbps += static_cast<double>(s.planned_bps) / 1e6;
    if (s.state == StreamState::waiting && s.outages > 0) {
      summary.reasons.push_back(fmt::format(
          "stream {} was cut off at the end ({:.1f} s without a session)", s.stream, s.outage_s));
    } else if (s.state == StreamState::waiting) {
      summary.reasons.push_back(fmt::format("stream {} never connected", s.stream));
    } else if (s.state == StreamState::failed) {
      summary.reasons.push_back(fmt::format("stream {} failed", s.stream));
    }
  }
  if (summary.drops > 0) summary.reasons.push_back(fmt::format("{} frames dropped", summary.drops));
  // A sender's verdict is end to end: what the receiver reported (FEEDBACK) counts too.
  std::uint64_t far_drops = 0;
  std::uint64_t far_checksum_errors = 0;
  for (const auto& s : last.streams) {
    if (!s.far_end.valid) continue;
    far_drops += s.far_end.drops;
    far_checksum_errors += s.far_end.checksum_errors;
  }
  if (far_drops > 0) {
    summary.reasons.push_back(fmt::format("the receiver reported {} frames dropped", far_drops));
  }
  if (far_checksum_errors > 0) {
    summary.reasons.push_back(
        fmt::format("the receiver reported {} checksum errors", far_checksum_errors));
  }
  if (summary.checksum_errors > 0) {
    summary.reasons.push_back(fmt::format("{} checksum errors", summary.checksum_errors));
  }
  if (summary.decode_errors > 0) {
    summary.reasons.push_back(fmt::format("{} frames failed to decode", summary.decode_errors));
  }
  if (summary.dropped_before_record > 0) {
    summary.reasons.push_back(fmt::format("recordings lost {} frames (the disk fell behind)",
                                          summary.dropped_before_record));
  }
  if (planned_mbps > 0 && summary.mbps < min_rate_fraction * planned_mbps) {
    summary.reasons.push_back(
        fmt::format("aggregate {:.1f} Mbps is below {:.0f}% of the planned {:.1f} Mbps",
                    summary.mbps, min_rate_fraction * 100, planned_mbps));
  }
  summary.pass = summary.reasons.empty();
  return summary;
}

std::optional<StatsFormat> stats_format_from_string(std::string_view name) {
  if (name == "text") return StatsFormat::text;
  if (name == "json") return StatsFormat::json;
  return std::nullopt;
}

nlohmann::ordered_json interval_json(const Snapshot& snapshot, const StreamSnapshot& s) {
  nlohmann::ordered_json line = {
      {"type", "interval"}, {"t", round3(snapshot.t)},  {"role", to_string(snapshot.role)},
      {"stream", s.stream}, {"transport", s.transport},
  };
  append_counters(line, s);
  return line;
}

nlohmann::ordered_json far_end_json(const Snapshot& snapshot, const StreamSnapshot& s) {
  nlohmann::ordered_json line = {
      {"type", "far_end"},
      {"t", round3(snapshot.t)},
      {"role", to_string(snapshot.role)},
      {"stream", s.stream},
  };
  append_far_end(line, s.far_end);
  return line;
}

nlohmann::ordered_json subconnection_json(const Snapshot& snapshot, const StreamSnapshot& s,
                                          const SubconnectionSnapshot& sub) {
  return {
      {"type", "subconn"},
      {"t", round3(snapshot.t)},
      {"role", to_string(snapshot.role)},
      {"stream", s.stream},
      {"index", sub.index},
      {"state", to_string(sub.state)},
      {"bytes", sub.bytes},
      {"mbps", round3(sub.mbps)},
      {"rtt_ms", round3(sub.rtt_ms)},
      {"retransmits", sub.retransmits},
      {"reconnects", sub.reconnects},
  };
}

nlohmann::ordered_json outage_json(const Snapshot& snapshot, const StreamSnapshot& s) {
  return {
      {"type", "outage"},
      {"t", round3(snapshot.t)},
      {"role", to_string(snapshot.role)},
      {"stream", s.stream},
      {"outages", s.outages},
      {"outage_s", round3(s.outage_s)},
      {"frames_lost", s.outage_frames_lost},
      {"in_progress", s.state == StreamState::waiting},
  };
}

nlohmann::ordered_json link_json(const Snapshot& snapshot, const StreamSnapshot& s) {
  return {
      {"type", "link"},
      {"t", round3(snapshot.t)},
      {"role", to_string(snapshot.role)},
      {"stream", s.stream},
      {"transport", s.transport},
      {"resent_chunks", s.link.resent_chunks},
      {"duplicate_chunks", s.link.duplicate_chunks},
      {"lost_packets", s.link.lost_packets},
      {"dropped_packets", s.link.dropped_packets},
      {"belated_packets", s.link.belated_packets},
      {"buffer_ms", round3(s.link.buffer_ms)},
  };
}

nlohmann::ordered_json aggregate_json(const Snapshot& snapshot) {
  return {
      {"type", "aggregate"},
      {"t", round3(snapshot.t)},
      {"role", to_string(snapshot.role)},
      {"streams", snapshot.streams.size()},
      {"mbps", round3(snapshot.aggregate_mbps())},
      {"drops", snapshot.aggregate_drops()},
  };
}

nlohmann::ordered_json summary_json(const Summary& summary) {
  return {
      {"type", "summary"},
      {"role", to_string(summary.role)},
      {"streams", summary.streams},
      {"duration_s", round3(summary.duration_s)},
      {"bytes", summary.bytes},
      {"frames", summary.frames},
      {"mbps", round3(summary.mbps)},
      {"drops", summary.drops},
      {"checksum_errors", summary.checksum_errors},
      {"verdict", summary.pass ? "pass" : "fail"},
      {"reasons", summary.reasons},  // why it failed, one line each; empty on pass
  };
}

nlohmann::ordered_json media_json(const Snapshot& snapshot, const StreamSnapshot& s) {
  return {
      {"type", "media"},
      {"t", round3(snapshot.t)},
      {"stream", s.stream},
      {"frames_decoded", s.frames_decoded},
      {"decode_errors", s.decode_errors},
      {"queue_depth", s.decode_queue_depth},
      {"dropped_before_decode", s.dropped_before_decode},
      {"frames_recorded", s.frames_recorded},
      {"dropped_before_record", s.dropped_before_record},
      {"frozen", s.frozen},
      {"black", s.black},
      {"latency_ms_p50", round3(s.latency_ms_p50)},
      {"latency_ms_p99", round3(s.latency_ms_p99)},
  };
}

nlohmann::ordered_json latency_json(Role role, const LatencySummary& latency) {
  return {
      {"type", "latency"},
      {"role", to_string(role)},
      {"frames", latency.frames},
      {"p50_ms", round3(latency.p50_ms)},
      {"p99_ms", round3(latency.p99_ms)},
      {"max_ms", round3(latency.max_ms)},
  };
}

void StatsReport::interval(const Snapshot& snapshot) {
  if (format_ == StatsFormat::json) {
    for (const auto& s : snapshot.streams) {
      out_ << interval_json(snapshot, s).dump() << '\n';
      for (const auto& sub : s.subconnections)
        out_ << subconnection_json(snapshot, s, sub).dump() << '\n';
      if (s.link.present) out_ << link_json(snapshot, s).dump() << '\n';
      if (s.far_end.valid) out_ << far_end_json(snapshot, s).dump() << '\n';
      if (s.outages > 0) out_ << outage_json(snapshot, s).dump() << '\n';
      if (s.media) out_ << media_json(snapshot, s).dump() << '\n';
    }
    out_ << aggregate_json(snapshot).dump() << std::endl;
    return;
  }
  for (const auto& s : snapshot.streams) {
    fmt::print(out_,
               "{:7.1f}s {} #{:<2} {:<4} {:<8} {:8.1f} Mbps  frames {:>7}  drops {:>4}  "
               "cksum {:>3}  jitter {:6.2f} ms  rtt {:7.2f} ms  retx {}\n",
               snapshot.t, to_string(snapshot.role), s.stream, s.transport, to_string(s.state),
               s.mbps, s.frames, s.drops, s.checksum_errors, s.jitter_ms, s.rtt_ms, s.retransmits);
    for (const auto& sub : s.subconnections) {
      fmt::print(out_,
                 "{:7.1f}s     conn {:<2} {:<8}           {:8.1f} Mbps  rtt {:7.2f} ms  retx {}  "
                 "reconnects {}\n",
                 snapshot.t, sub.index, to_string(sub.state), sub.mbps, sub.rtt_ms, sub.retransmits,
                 sub.reconnects);
    }
    if (s.link.present) {
      fmt::print(out_,
                 "{:7.1f}s     link:   resent {}  duplicates {}  lost pkts {}  dropped pkts {}  "
                 "belated {}  buffer {:.1f} ms\n",
                 snapshot.t, s.link.resent_chunks, s.link.duplicate_chunks, s.link.lost_packets,
                 s.link.dropped_packets, s.link.belated_packets, s.link.buffer_ms);
    }
    if (s.far_end.valid) {
      fmt::print(out_,
                 "{:7.1f}s     far end:          frames {:>7}  drops {:>4}  cksum {:>3}  jitter "
                 "{:6.2f} ms  fps {:6.2f}  latency {:7.2f} ms\n",
                 snapshot.t, s.far_end.frames, s.far_end.drops, s.far_end.checksum_errors,
                 s.far_end.jitter_ms, s.far_end.fps, s.far_end.latency_ms);
    }
    if (s.outages > 0) print_outage(snapshot.t, s);
    if (s.media) {
      fmt::print(out_,
                 "{:7.1f}s {} #{:<2} media    decoded {:>7}  errors {:>3}  queue {}/{}  "
                 "dropped before decode {:>4}  latency p50 {:.2f} ms  p99 {:.2f} ms\n",
                 snapshot.t, to_string(snapshot.role), s.stream, s.frames_decoded, s.decode_errors,
                 s.decode_queue_depth, s.decode_queue_capacity, s.dropped_before_decode,
                 s.latency_ms_p50, s.latency_ms_p99);
    }
  }
  fmt::print(out_, "{:7.1f}s {} all {:>2} streams     {:8.1f} Mbps  drops {}\n", snapshot.t,
             to_string(snapshot.role), snapshot.streams.size(), snapshot.aggregate_mbps(),
             snapshot.aggregate_drops());
  out_.flush();
}

void StatsReport::media(const Snapshot& snapshot) {
  for (const auto& s : snapshot.streams) {
    if (!s.media) continue;
    if (format_ == StatsFormat::json) {
      out_ << media_json(snapshot, s).dump() << '\n';
    } else {
      fmt::print(out_,
                 "final   {} #{:<2} media    decoded {:>7}  errors {:>3}  dropped before decode "
                 "{:>4}  latency p50 {:.2f} ms  p99 {:.2f} ms  recorded {} (dropped before "
                 "record {})\n",
                 to_string(snapshot.role), s.stream, s.frames_decoded, s.decode_errors,
                 s.dropped_before_decode, s.latency_ms_p50, s.latency_ms_p99, s.frames_recorded,
                 s.dropped_before_record);
    }
  }
  out_.flush();
}

void StatsReport::far_end(const Snapshot& snapshot) {
  for (const auto& s : snapshot.streams) {
    if (!s.far_end.valid) continue;
    if (format_ == StatsFormat::json) {
      out_ << far_end_json(snapshot, s).dump() << '\n';
    } else {
      fmt::print(out_,
                 "final   {} #{:<2} far end  frames {:>7}  drops {:>4}  cksum {:>3}  jitter "
                 "{:6.2f} ms  latency {:7.2f} ms\n",
                 to_string(snapshot.role), s.stream, s.far_end.frames, s.far_end.drops,
                 s.far_end.checksum_errors, s.far_end.jitter_ms, s.far_end.latency_ms);
    }
  }
}

void StatsReport::print_outage(double t, const StreamSnapshot& s) {
  fmt::print(out_, "{:7.1f}s     outages: {}  {:.1f} s without a session  frames lost {}{}\n", t,
             s.outages, s.outage_s, s.outage_frames_lost,
             s.state == StreamState::waiting ? "  (cut off now)" : "");
}

void StatsReport::outages(const Snapshot& snapshot) {
  for (const auto& s : snapshot.streams) {
    if (s.outages == 0) continue;
    if (format_ == StatsFormat::json) {
      out_ << outage_json(snapshot, s).dump() << '\n';
    } else {
      fmt::print(out_, "final   {} #{:<2} ", to_string(snapshot.role), s.stream);
      print_outage(snapshot.t, s);
    }
  }
  out_.flush();
}

void StatsReport::summary(const Summary& summary) {
  if (format_ == StatsFormat::json) {
    out_ << summary_json(summary).dump() << std::endl;
    return;
  }
  fmt::print(out_,
             "summary {}: {} streams, {:.2f} s, {} bytes, {} frames, {:.1f} Mbps, {} drops, {} "
             "checksum errors: {}\n",
             to_string(summary.role), summary.streams, summary.duration_s, summary.bytes,
             summary.frames, summary.mbps, summary.drops, summary.checksum_errors,
             summary.pass ? "PASS" : "FAIL");
  for (const auto& reason : summary.reasons) fmt::print(out_, "  fail: {}\n", reason);
  out_.flush();
}

void StatsReport::latency(Role role, const LatencySummary& latency) {
  if (format_ == StatsFormat::json) {
    out_ << latency_json(role, latency).dump() << std::endl;
    return;
  }
  fmt::print(out_,
             "latency {}: {} frames, frame ready -> received whole p50 {:.3f} ms, p99 {:.3f} "
             "ms, max {:.3f} ms\n",
             to_string(role), latency.frames, latency.p50_ms, latency.p99_ms, latency.max_ms);
  out_.flush();
}

}  // namespace hdstream
