// A link's service acceptance criteria (ITU-T Y.1564's "SAC") and their check against what a
// phase of `hdstream check --acceptance` measured: each criterion pass or fail, with the value
// measured, the threshold and the margin between them.
//   AcceptanceCriteria criteria = criteria_from(destination.sla, planned_bps_per_feed);
//   std::vector<CriterionResult> results = evaluate(criteria, figures, /*soak=*/true);
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "acceptance/phase_figures.hpp"
#include "presets/presets.hpp"

namespace hdstream {

// Thresholds. The defaults are those of a 270 Mbps SDI contribution feed carried for a live
// show: every frame that leaves arrives (≤ 1 lost in 10^5), within a latency budget a two-way
// interview tolerates (ITU-T G.114's 150 ms one way), with a delay variation the receiver's
// latency budget absorbs many times over, and no more than one severely errored second in a
// thousand. docs/ACCEPTANCE.md gives the reasoning for each.
struct AcceptanceCriteria {
  double min_rate_fraction = 0.99;     // information rate ≥ this × the rate offered
  double max_delay_ms = 150;           // frame delay: one way, or half the RTT
  double max_delay_variation_ms = 10;  // frame delay variation, p99
  double max_loss_ratio = 1e-5;        // frames lost ÷ frames offered
  double min_availability = 0.999;     // soak: seconds not severely errored ÷ seconds
  // A second is severely errored when more than this fraction of its frames is lost (G.826's
  // 30 %); errored when any is.
  double severe_loss_fraction = 0.3;
};

// The destination's `[destinations.NAME.sla]` over the defaults; a `min_rate` given as a rate is
// taken against `planned_bps_per_feed` (the rate at 100 %).
AcceptanceCriteria criteria_from(const SlaPreset& sla, double planned_bps_per_feed);

struct CriterionResult {
  std::string name;       // "information rate", "frame delay", ...
  std::string measured;   // "269.8 Mbps", "2.01 ms (one way)"
  std::string threshold;  // "≥ 267.3 Mbps"
  std::string margin;     // "+2.5 Mbps", "-3.1 ms": how far inside (+) or outside (-) it is
  bool pass = false;
  bool judged = true;  // false: shown, but the transport hides what it would judge
};

// Every criterion against one phase. Availability is judged on the soak only (a ramp step is
// too short for it to mean anything); the other criteria on every phase.
std::vector<CriterionResult> evaluate(const AcceptanceCriteria& criteria,
                                      const PhaseFigures& figures, bool soak);

// A ratio as an engineer writes it: 0, 1e-05, 0.0012.
std::string ratio_text(double value);

inline bool all_pass(const std::vector<CriterionResult>& results) {
  for (const auto& r : results) {
    if (!r.pass) return false;
  }
  return true;
}

}  // namespace hdstream
