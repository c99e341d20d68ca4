#include "telemetry/prometheus.hpp"

#include <functional>
#include <iterator>
#include <optional>

#include <fmt/format.h>

namespace hdstream {
namespace {

enum class Kind { counter, gauge };

// One metric family: HELP/TYPE once, then a sample per stream of the roles it applies to.
struct Family {
  const char* name;
  Kind kind;
  const char* help;
  std::optional<Role> only_role;  // nullopt: every role
  std::function<std::optional<double>(const StreamSnapshot&)> value;
};

// One family of a protected feed's per-leg figures: a sample per leg, labelled leg="A" | "B".
struct LegFamily {
  const char* name;
  Kind kind;
  const char* help;
  std::optional<Role> only_role;
  std::function<double(const LegSnapshot&)> value;
};

std::string escape_label(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\\' || c == '"') out.push_back('\\');
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out.push_back(c);
  }
  return out;
}

const std::vector<Family>& families() {
  auto u = [](std::uint64_t v) { return std::optional<double>(static_cast<double>(v)); };
  auto srt = [](auto pick) {
    return [pick](const StreamSnapshot& s) -> std::optional<double> {
      if (!s.srt.present) return std::nullopt;
      return static_cast<double>(pick(s.srt));
    };
  };
  auto far = [](auto pick) {
    return [pick](const StreamSnapshot& s) -> std::optional<double> {
      if (!s.far_end.valid) return std::nullopt;
      return pick(s.far_end);
    };
  };
  auto protection = [](auto pick) {
    return [pick](const StreamSnapshot& s) -> std::optional<double> {
      if (!s.protection.present) return std::nullopt;
      return static_cast<double>(pick(s.protection));
    };
  };
  static const std::vector<Family> list{
      {"hdstream_bytes_sent_total", Kind::counter, "Payload bytes of frames sent.", Role::send,
       [u](const StreamSnapshot& s) { return u(s.bytes); }},
      {"hdstream_bytes_received_total", Kind::counter,
       "Payload bytes of frames received whole and verified.", Role::recv,
       [u](const StreamSnapshot& s) { return u(s.bytes); }},
      {"hdstream_frames_sent_total", Kind::counter, "Frames sent.", Role::send,
       [u](const StreamSnapshot& s) { return u(s.frames); }},
      {"hdstream_frames_received_total", Kind::counter, "Frames received whole and verified.",
       Role::recv, [u](const StreamSnapshot& s) { return u(s.frames); }},
      {"hdstream_frames_dropped_total", Kind::counter,
       "Frames dropped: send queue full (send), missing, incomplete or late (recv).", std::nullopt,
       [u](const StreamSnapshot& s) { return u(s.drops); }},
      {"hdstream_checksum_errors_total", Kind::counter,
       "Chunks or frames that failed XXH3 or end-to-end verification.", std::nullopt,
       [u](const StreamSnapshot& s) { return u(s.checksum_errors); }},
      {"hdstream_retransmits_total", Kind::counter, "TCP segments retransmitted (TCP_INFO).",
       Role::send, [u](const StreamSnapshot& s) { return u(s.retransmits); }},
      {"hdstream_jitter_seconds", Kind::gauge, "RFC 3550 inter-arrival jitter of frames.",
       Role::recv, [](const StreamSnapshot& s) { return std::optional(s.jitter_ms / 1e3); }},
      {"hdstream_rtt_seconds", Kind::gauge,
       "Smoothed round-trip time of the path (TCP_INFO srtt; SRT msRTT).", std::nullopt,
       [](const StreamSnapshot& s) { return std::optional(s.rtt_ms / 1e3); }},
      {"hdstream_latency_seconds", Kind::gauge,
       "Smoothed frame latency: arrival minus the sender's timestamp.", Role::recv,
       [](const StreamSnapshot& s) { return std::optional(s.latency_ms / 1e3); }},
      {"hdstream_planned_bytes_per_second", Kind::gauge, "Nominal rate of the feed.", std::nullopt,
       [](const StreamSnapshot& s) {
         return std::optional(static_cast<double>(s.planned_bps) / 8);
       }},
      {"hdstream_stream_running", Kind::gauge, "1 while the feed's session is running.",
       std::nullopt,
       [](const StreamSnapshot& s) {
         return std::optional(s.state == StreamState::running ? 1.0 : 0.0);
       }},
      {"hdstream_picture_frozen", Kind::gauge,
       "1 while the feed's decoded picture has not changed for 2 s.", Role::recv,
       [](const StreamSnapshot& s) -> std::optional<double> {
         if (!s.media) return std::nullopt;
         return s.frozen ? 1.0 : 0.0;
       }},
      {"hdstream_picture_black", Kind::gauge, "1 while the feed's decoded picture is black (1 s).",
       Role::recv,
       [](const StreamSnapshot& s) -> std::optional<double> {
         if (!s.media) return std::nullopt;
         return s.black ? 1.0 : 0.0;
       }},
      {"hdstream_audio_gaps_total", Kind::counter,
       "Runs of frames whose sound never came (played and recorded as silence).", Role::recv,
       [](const StreamSnapshot& s) -> std::optional<double> {
         if (!s.media || s.audio_channels == 0) return std::nullopt;
         return static_cast<double>(s.audio_gaps);
       }},
      {"hdstream_audio_silent", Kind::gauge,
       "1 while every channel of the feed's sound has been below -60 dBFS for the silence "
       "alarm's time (--silence-alarm).",
       Role::recv,
       [](const StreamSnapshot& s) -> std::optional<double> {
         if (!s.media || s.audio_channels == 0) return std::nullopt;
         return s.sound.silent ? 1.0 : 0.0;
       }},
      {"hdstream_av_offset_seconds", Kind::gauge,
       "The last lip-sync measure: the sync marker's beep at the audio sink less its flash at "
       "the picture sinks (positive: the sound trails).",
       Role::recv,
       [](const StreamSnapshot& s) -> std::optional<double> {
         if (!s.av_offset_ms) return std::nullopt;
         return *s.av_offset_ms / 1e3;
       }},
      {"hdstream_srt_fec_packets_total", Kind::counter,
       "SRT FEC packets (--srt-fec) sent (send) or received (recv); 0 without FEC.", std::nullopt,
       srt([](const SrtSnapshot& t) { return t.fec_packets; })},
      {"hdstream_srt_fec_recovered_total", Kind::counter,
       "Lost SRT packets the receiver's FEC rebuilt.", Role::recv,
       srt([](const SrtSnapshot& t) { return t.fec_recovered; })},
      {"hdstream_srt_fec_uncorrectable_total", Kind::counter,
       "Lost SRT packets FEC could not rebuild (left to retransmission, or dropped).", Role::recv,
       srt([](const SrtSnapshot& t) { return t.fec_uncorrectable; })},
      {"hdstream_protected_frames_total", Kind::counter,
       "Frames of a protected feed that only one leg delivered: one path alone would have lost "
       "them.",
       Role::recv, protection([](const ProtectionSnapshot& p) { return p.protected_frames; })},
      {"hdstream_legs_up", Kind::gauge, "Legs (paths) of a protected feed up now, of 2.",
       std::nullopt, protection([](const ProtectionSnapshot& p) { return p.legs_up; })},
      {"hdstream_skew_seconds", Kind::gauge,
       "How long the receiver of a protected feed waits for the later leg (the skew window).",
       Role::recv, protection([](const ProtectionSnapshot& p) { return p.skew_ms / 1e3; })},
      {"hdstream_far_end_frames_received_total", Kind::counter,
       "Frames the receiver reports as delivered whole and verified (FEEDBACK).", Role::send,
       far([](const FarEndSnapshot& f) { return static_cast<double>(f.frames); })},
      {"hdstream_far_end_frames_dropped_total", Kind::counter,
       "Frames the receiver reports as dropped (FEEDBACK).", Role::send,
       far([](const FarEndSnapshot& f) { return static_cast<double>(f.drops); })},
      {"hdstream_far_end_jitter_seconds", Kind::gauge, "Jitter the receiver reports (FEEDBACK).",
       Role::send, far([](const FarEndSnapshot& f) { return f.jitter_ms / 1e3; })},
      {"hdstream_far_end_latency_seconds", Kind::gauge,
       "Frame latency the receiver reports (FEEDBACK).", Role::send,
       far([](const FarEndSnapshot& f) { return f.latency_ms / 1e3; })},
      {"hdstream_far_end_frames_per_second", Kind::gauge,
       "Frames per second the receiver delivers (FEEDBACK).", Role::send,
       far([](const FarEndSnapshot& f) { return f.fps; })},
      {"hdstream_far_end_report_age_seconds", Kind::gauge,
       "Age of the receiver's last FEEDBACK report.", Role::send,
       far([](const FarEndSnapshot& f) { return f.age_ms / 1e3; })},
  };
  return list;
}

const std::vector<LegFamily>& leg_families() {
  auto u = [](std::uint64_t v) { return static_cast<double>(v); };
  static const std::vector<LegFamily> list{
      {"hdstream_leg_up", Kind::gauge, "1 while this leg (path) of a protected feed is running.",
       std::nullopt,
       [](const LegSnapshot& l) { return l.state == StreamState::running ? 1.0 : 0.0; }},
      {"hdstream_leg_bytes_sent_total", Kind::counter,
       "Payload bytes of frames this leg of a protected feed sent.", Role::send,
       [u](const LegSnapshot& l) { return u(l.bytes); }},
      {"hdstream_leg_bytes_received_total", Kind::counter,
       "Payload bytes of frames this leg of a protected feed received whole and verified.",
       Role::recv, [u](const LegSnapshot& l) { return u(l.bytes); }},
      {"hdstream_leg_frames_sent_total", Kind::counter, "Frames this leg of a protected feed sent.",
       Role::send, [u](const LegSnapshot& l) { return u(l.frames); }},
      {"hdstream_leg_frames_received_total", Kind::counter,
       "Frames this leg of a protected feed received whole and verified.", Role::recv,
       [u](const LegSnapshot& l) { return u(l.frames); }},
      {"hdstream_leg_frames_dropped_total", Kind::counter,
       "Frames this leg alone lost: its send queue full (send), missing or incomplete on it "
       "(recv).",
       std::nullopt, [u](const LegSnapshot& l) { return u(l.drops); }},
      {"hdstream_leg_rtt_seconds", Kind::gauge, "Smoothed round-trip time of this leg's path.",
       std::nullopt, [](const LegSnapshot& l) { return l.rtt_ms / 1e3; }},
      {"hdstream_leg_retransmits_total", Kind::counter,
       "TCP segments this leg retransmitted (TCP_INFO).", Role::send,
       [u](const LegSnapshot& l) { return u(l.retransmits); }},
      {"hdstream_leg_only_frames_total", Kind::counter,
       "Frames of a protected feed that only this leg delivered.", Role::recv,
       [u](const LegSnapshot& l) { return u(l.only_frames); }},
  };
  return list;
}

}  // namespace

std::string prometheus_text(std::span<const LabeledSnapshot> sources) {
  std::string out;
  out.reserve(8192);
  auto it = std::back_inserter(out);
  // Each family's HELP and TYPE lines, before its samples.
  auto announce = [&it](const auto& family) {
    fmt::format_to(it, "# HELP {} {}\n# TYPE {} {}\n", family.name, family.help, family.name,
                   family.kind == Kind::counter ? "counter" : "gauge");
  };
  for (const auto& family : families()) {
    announce(family);
    for (const auto& source : sources) {
      const Snapshot& snapshot = source.snapshot;
      if (family.only_role && *family.only_role != snapshot.role) continue;
      for (const auto& s : snapshot.streams) {
        const auto value = family.value(s);
        if (!value) continue;
        fmt::format_to(it, "{}{{role=\"{}\",stream=\"{}\",transport=\"{}\"}} {}\n", family.name,
                       to_string(snapshot.role), s.stream, escape_label(s.transport), *value);
      }
    }
  }
  for (const auto& family : leg_families()) {
    announce(family);
    for (const auto& source : sources) {
      const Snapshot& snapshot = source.snapshot;
      if (family.only_role && *family.only_role != snapshot.role) continue;
      for (const auto& s : snapshot.streams) {
        if (!s.protection.present) continue;
        for (const auto& leg : s.protection.legs) {
          fmt::format_to(it, "{}{{role=\"{}\",stream=\"{}\",transport=\"{}\",leg=\"{}\"}} {}\n",
                         family.name, to_string(snapshot.role), s.stream, escape_label(s.transport),
                         leg.leg == 0 ? "A" : "B", family.value(leg));
        }
      }
    }
  }
  fmt::format_to(it,
                 "# HELP hdstream_uptime_seconds Seconds since the run started.\n"
                 "# TYPE hdstream_uptime_seconds gauge\n");
  for (const auto& source : sources) {
    fmt::format_to(it, "hdstream_uptime_seconds{{role=\"{}\"}} {}\n",
                   to_string(source.snapshot.role), source.snapshot.t);
  }
  return out;
}

}  // namespace hdstream
