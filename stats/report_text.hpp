// The text report's lines, for people at a terminal: fixed columns, one line per stream and
// interval, indented lines for sub-connections, link figures, the far end and outages.
//   write_interval_text(std::cout, snapshot);  write_summary_text(std::cout, summary);
#pragma once

#include <ostream>
#include <string>

#include "stats/latency.hpp"
#include "stats/snapshot.hpp"
#include "stats/summary.hpp"

namespace hdstream {

// One line per stream (and its sub-connection, link, far-end, outage and media lines), then
// the aggregate line.
void write_interval_text(std::ostream& out, const Snapshot& snapshot);
// A stream's outage line, stamped `t`: count, seconds without a session, frames lost.
void write_outage_text(std::ostream& out, double t, const StreamSnapshot& stream);
// The final lines of a stream, written once after the run: its media figures, what its
// receiver last reported (FEEDBACK), its outages.
// A protected feed's protection line and a line per leg, after `prefix` (time or "final").
void write_protection_text(std::ostream& out, const std::string& prefix,
                           const StreamSnapshot& stream);
void write_final_protection_text(std::ostream& out, Role role, const StreamSnapshot& stream);
void write_final_media_text(std::ostream& out, Role role, const StreamSnapshot& stream);
void write_final_far_end_text(std::ostream& out, Role role, const StreamSnapshot& stream);
void write_final_outage_text(std::ostream& out, const Snapshot& snapshot,
                             const StreamSnapshot& stream);
// The verdict line and one "fail:" line per reason.
void write_summary_text(std::ostream& out, const Summary& summary);
void write_latency_text(std::ostream& out, Role role, const LatencySummary& latency);

}  // namespace hdstream
