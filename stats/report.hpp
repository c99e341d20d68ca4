// Renders snapshots and the summary as text lines for people or JSON lines for machines
// (schema in docs/PROTOCOL.md#stats and ../README.md).
//   StatsReport report(StatsFormat::json, std::cout);
//   report.interval(snapshot);  ...  report.summary(summarize(last));
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "stats/latency.hpp"
#include "stats/snapshot.hpp"

namespace hdstream {

enum class StatsFormat : std::uint8_t { text = 1, json = 2 };
std::optional<StatsFormat> stats_format_from_string(std::string_view name);

// The JSON objects of the schema, one per line when written.
nlohmann::ordered_json interval_json(const Snapshot& snapshot, const StreamSnapshot& stream);
nlohmann::ordered_json aggregate_json(const Snapshot& snapshot);
// The receiver's view of a sent feed, from FEEDBACK: {"type":"far_end",...}
// (docs/PROTOCOL.md#feedback). A separate line type, so the "interval" schema stays exactly as
// documented.
nlohmann::ordered_json far_end_json(const Snapshot& snapshot, const StreamSnapshot& stream);
// mtcp: one "subconn" line per sub-connection of a feed (Mbps, RTT, retransmits, state).
nlohmann::ordered_json subconnection_json(const Snapshot& snapshot, const StreamSnapshot& stream,
                                          const SubconnectionSnapshot& sub);
// Transport extras: mtcp re-sent / duplicate chunks, SRT lost / dropped / belated packets and
// buffer; a "link" line when the transport has them.
nlohmann::ordered_json link_json(const Snapshot& snapshot, const StreamSnapshot& stream);
// A feed whose session broke mid-feed: an "outage" line (count, seconds without a session,
// frames lost across the breaks, whether it is cut off now), on both ends.
nlohmann::ordered_json outage_json(const Snapshot& snapshot, const StreamSnapshot& stream);
nlohmann::ordered_json summary_json(const Summary& summary);
// Receiver media figures of one stream: a line type of its own, so the interval line's schema
// stays exactly as documented. Written after the interval lines for streams with a decoder.
nlohmann::ordered_json media_json(const Snapshot& snapshot, const StreamSnapshot& stream);
// Its own line type, so the interval/aggregate/summary schema stays as it is.
nlohmann::ordered_json latency_json(Role role, const LatencySummary& latency);

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
  void latency(Role role, const LatencySummary& latency);

 private:
  void print_outage(double t, const StreamSnapshot& stream);

  StatsFormat format_;
  std::ostream& out_;
};

}  // namespace hdstream
