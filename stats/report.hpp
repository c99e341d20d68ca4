// Writes snapshots and the summary as text lines for people (stats/report_text.hpp) or JSON
// lines for machines (stats/report_json.hpp; schema in
// docs/telemetry.md#stats-lines---stats-textjson).
//   StatsReport report(StatsFormat::json, std::cout);
//   report.interval(snapshot);  ...  report.summary(summarize(last));
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string_view>

#include "stats/latency.hpp"
#include "stats/snapshot.hpp"
#include "stats/summary.hpp"

namespace hdstream {

enum class StatsFormat : std::uint8_t { text = 1, json = 2 };
std::optional<StatsFormat> stats_format_from_string(std::string_view name);

class StatsReport {
 public:
  StatsReport(StatsFormat format, std::ostream& out) : format_(format), out_(out) {}

  // One line per stream and an aggregate line; flushed so a tail -f sees it at once.
  void interval(const Snapshot& snapshot);
  void summary(const Summary& summary);
  // Final media figures (JSON "media" lines / text media lines) after the decoders drained,
  // written just before the summary so the last media line holds the run's totals.
  void media(const Snapshot& snapshot);
  // A sender's final far-end figures (the receiver's last FEEDBACK report), before its summary.
  void far_end(const Snapshot& snapshot);
  // Final outage figures of the streams that had any, before the summary.
  void outages(const Snapshot& snapshot);
  // Final protection and leg figures of protected feeds, before the summary.
  void protection(const Snapshot& snapshot);
  void latency(Role role, const LatencySummary& latency);

 private:
  StatsFormat format_;
  std::ostream& out_;
};

}  // namespace hdstream
