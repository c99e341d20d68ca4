#include "stats/report_json.hpp"

#include "stats/json_fields.hpp"

namespace hdstream {

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
      {"resent_chunks", s.striped.resent_chunks},
      {"duplicate_chunks", s.striped.duplicate_chunks},
      {"lost_packets", s.srt.lost_packets},
      {"dropped_packets", s.srt.dropped_packets},
      {"belated_packets", s.srt.belated_packets},
      {"buffer_ms", round3(s.srt.buffer_ms)},
      {"fec_packets", s.srt.fec_packets},
      {"fec_recovered", s.srt.fec_recovered},
      {"fec_uncorrectable", s.srt.fec_uncorrectable},
  };
}

nlohmann::ordered_json protection_json(const Snapshot& snapshot, const StreamSnapshot& s) {
  nlohmann::ordered_json line = {
      {"type", "protection"},
      {"t", round3(snapshot.t)},
      {"role", to_string(snapshot.role)},
      {"stream", s.stream},
  };
  append_protection(line, s.protection);
  return line;
}

nlohmann::ordered_json leg_json(const Snapshot& snapshot, const StreamSnapshot& s,
                                const LegSnapshot& leg) {
  nlohmann::ordered_json line = {
      {"type", "leg"},
      {"t", round3(snapshot.t)},
      {"role", to_string(snapshot.role)},
      {"stream", s.stream},
  };
  append_leg(line, leg);
  return line;
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
      {"audio_channels", s.audio_channels},
      {"audio_gaps", s.audio_gaps},
      {"audio_silence_samples", s.audio_silence_samples},
      {"audio_samples_played", s.audio_samples_played},
      {"audio_heard", s.audio_heard},
      {"av_offset_ms",
       s.av_offset_ms ? nlohmann::ordered_json(round3(*s.av_offset_ms)) : nlohmann::ordered_json()},
      {"audio_levels", audio_levels_json(s.sound)},
      {"audio_silent", s.sound.silent},
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

}  // namespace hdstream
