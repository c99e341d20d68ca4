// The end of a run: its figures and the verdict, from the last snapshot.
//   const Summary summary = summarize(last);  // summary.pass, summary.reasons
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "stats/snapshot.hpp"

namespace hdstream {

// End-of-run figures and the verdict an engineer signs off on.
struct Summary {
  Role role = Role::send;
  std::size_t streams = 0;
  double duration_s = 0;  // first frame to last frame, over all streams
  std::uint64_t bytes = 0;
  std::uint64_t frames = 0;
  double mbps = 0;
  std::uint64_t drops = 0;
  std::uint64_t checksum_errors = 0;
  // Not in the JSON summary line (its schema is fixed); each fails the verdict.
  std::uint64_t decode_errors = 0;
  std::uint64_t dropped_before_record = 0;
  bool pass = false;
  std::vector<std::string> reasons;  // why it failed, one line each (empty on pass)
};

// Builds the summary from the last snapshot. Fails on any drop or checksum error (a sender's
// own, or one its receiver reported back), any stream that never ran or failed, or an
// aggregate below `min_rate_fraction` of the planned rate.
Summary summarize(const Snapshot& last, double min_rate_fraction = 0.95);

}  // namespace hdstream
