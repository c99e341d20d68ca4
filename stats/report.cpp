#include "stats/report.hpp"

#include "stats/report_json.hpp"
#include "stats/report_text.hpp"

namespace hdstream {

std::optional<StatsFormat> stats_format_from_string(std::string_view name) {
  if (name == "text") return StatsFormat::text;
  if (name == "json") return StatsFormat::json;
  return std::nullopt;
}

void StatsReport::interval(const Snapshot& snapshot) {
  if (format_ == StatsFormat::json) {
    for (const auto& s : snapshot.streams) {
      out_ << interval_json(snapshot, s).dump() << '\n';
      for (const auto& sub : s.striped.subconnections)
        out_ << subconnection_json(snapshot, s, sub).dump() << '\n';
      if (s.striped.present || s.srt.present) out_ << link_json(snapshot, s).dump() << '\n';
      if (s.protection.present) {
        out_ << protection_json(snapshot, s).dump() << '\n';
        for (const auto& leg : s.protection.legs) out_ << leg_json(snapshot, s, leg).dump() << '\n';
      }
      if (s.far_end.valid) out_ << far_end_json(snapshot, s).dump() << '\n';
      if (s.outages > 0) out_ << outage_json(snapshot, s).dump() << '\n';
      if (s.media) out_ << media_json(snapshot, s).dump() << '\n';
    }
    out_ << aggregate_json(snapshot).dump() << std::endl;
    return;
  }
  write_interval_text(out_, snapshot);
  out_.flush();
}

void StatsReport::media(const Snapshot& snapshot) {
  for (const auto& s : snapshot.streams) {
    if (!s.media) continue;
    if (format_ == StatsFormat::json) {
      out_ << media_json(snapshot, s).dump() << '\n';
    } else {
      write_final_media_text(out_, snapshot.role, s);
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
      write_final_far_end_text(out_, snapshot.role, s);
    }
  }
}

void StatsReport::protection(const Snapshot& snapshot) {
  for (const auto& s : snapshot.streams) {
    if (!s.protection.present) continue;
    if (format_ == StatsFormat::json) {
      out_ << protection_json(snapshot, s).dump() << '\n';
      for (const auto& leg : s.protection.legs) out_ << leg_json(snapshot, s, leg).dump() << '\n';
    } else {
      write_final_protection_text(out_, snapshot.role, s);
    }
  }
  out_.flush();
}

void StatsReport::outages(const Snapshot& snapshot) {
  for (const auto& s : snapshot.streams) {
    if (s.outages == 0) continue;
    if (format_ == StatsFormat::json) {
      out_ << outage_json(snapshot, s).dump() << '\n';
    } else {
      write_final_outage_text(out_, snapshot, s);
    }
  }
  out_.flush();
}

void StatsReport::summary(const Summary& summary) {
  if (format_ == StatsFormat::json) {
    out_ << summary_json(summary).dump() << std::endl;
    return;
  }
  write_summary_text(out_, summary);
  out_.flush();
}

void StatsReport::latency(Role role, const LatencySummary& latency) {
  if (format_ == StatsFormat::json) {
    out_ << latency_json(role, latency).dump() << std::endl;
    return;
  }
  write_latency_text(out_, role, latency);
  out_.flush();
}

}  // namespace hdstream
