#include "stats/summary.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "common/units.hpp"

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

}  // namespace hdstream
