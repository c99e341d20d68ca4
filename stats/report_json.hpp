// The JSON-lines report's objects, one per line when written (schema in
// docs/telemetry.md#stats-lines---stats-textjson).
//   out << interval_json(snapshot, snapshot.streams[0]).dump() << '\n';
#pragma once

#include <nlohmann/json.hpp>

#include "stats/latency.hpp"
#include "stats/snapshot.hpp"
#include "stats/summary.hpp"

namespace hdstream {

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
// A protected feed (two legs): what the second path saved, and one line per leg.
nlohmann::ordered_json protection_json(const Snapshot& snapshot, const StreamSnapshot& stream);
nlohmann::ordered_json leg_json(const Snapshot& snapshot, const StreamSnapshot& stream,
                                const LegSnapshot& leg);
// A feed whose session broke mid-feed: an "outage" line (count, seconds without a session,
// frames lost across the breaks, whether it is cut off now), on both ends.
nlohmann::ordered_json outage_json(const Snapshot& snapshot, const StreamSnapshot& stream);
nlohmann::ordered_json summary_json(const Summary& summary);
// Receiver media figures of one stream: a line type of its own, so the interval line's schema
// stays exactly as documented. Written after the interval lines for streams with a decoder.
nlohmann::ordered_json media_json(const Snapshot& snapshot, const StreamSnapshot& stream);
// Its own line type, so the interval/aggregate/summary schema stays as it is.
nlohmann::ordered_json latency_json(Role role, const LatencySummary& latency);

}  // namespace hdstream
