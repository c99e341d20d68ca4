#include "acceptance/criteria.hpp"

#include <chrono>

#include <fmt/format.h>

namespace hdstream {
namespace {

CriterionResult at_most(std::string name, double measured, double limit, std::string_view unit,
                        std::string measured_text = {}) {
  return CriterionResult{.name = std::move(name),
                         .measured = measured_text.empty()
                                         ? fmt::format("{:.3f} {}", measured, unit)
                                         : std::move(measured_text),
                         .threshold = fmt::format("≤ {:.3f} {}", limit, unit),
                         .margin = fmt::format("{:+.3f} {}", limit - measured, unit),
                         .pass = measured <= limit};
}

}  // namespace

std::string ratio_text(double value) {
  return value == 0 ? "0" : fmt::format("{:.2g}", value);
}

AcceptanceCriteria criteria_from(const SlaPreset& sla, double planned_bps_per_feed) {
  using Ms = std::chrono::duration<double, std::milli>;
  AcceptanceCriteria c;
  if (sla.min_rate_fraction) c.min_rate_fraction = *sla.min_rate_fraction;
  if (sla.min_rate_bps && planned_bps_per_feed > 0) {
    c.min_rate_fraction = static_cast<double>(*sla.min_rate_bps) / planned_bps_per_feed;
  }
  if (sla.max_delay) c.max_delay_ms = Ms(*sla.max_delay).count();
  if (sla.max_delay_variation) c.max_delay_variation_ms = Ms(*sla.max_delay_variation).count();
  c.max_loss_ratio = sla.max_loss_ratio.value_or(c.max_loss_ratio);
  c.min_availability = sla.min_availability.value_or(c.min_availability);
  c.severe_loss_fraction = sla.severely_errored.value_or(c.severe_loss_fraction);
  return c;
}

std::vector<CriterionResult> evaluate(const AcceptanceCriteria& criteria, const PhaseFigures& f,
                                      bool soak) {
  std::vector<CriterionResult> results;
  const double min_rate = criteria.min_rate_fraction * f.offered_mbps;
  results.push_back(CriterionResult{.name = "information rate",
                                    .measured = fmt::format("{:.1f} Mbps", f.rate_mbps),
                                    .threshold = fmt::format("≥ {:.1f} Mbps", min_rate),
                                    .margin = fmt::format("{:+.1f} Mbps", f.rate_mbps - min_rate),
                                    .pass = f.rate_mbps >= min_rate});
  // Nothing measured is a failure, never a delay of 0 ms.
  auto unmeasured = [](std::string name, std::string why, std::string threshold) {
    return CriterionResult{.name = std::move(name),
                           .measured = "not measured: " + std::move(why),
                           .threshold = std::move(threshold),
                           .pass = false};
  };
  if (f.delay_measured) {
    results.push_back(at_most("frame delay", f.delay_ms, criteria.max_delay_ms, "ms",
                              fmt::format("{:.3f} ms ({})", f.delay_ms, to_string(f.delay_basis))));
  } else {
    results.push_back(unmeasured(
        "frame delay", f.delay_basis == DelayBasis::one_way ? "no frame arrived" : "no RTT reading",
        fmt::format("≤ {:.3f} ms", criteria.max_delay_ms)));
  }
  const std::string variation = "frame delay variation (p99)";
  if (!f.variation_not_judged.empty()) {
    results.push_back(
        CriterionResult{.name = variation,
                        .measured = fmt::format("{:.3f} ms, not judged: {}",
                                                f.delay_variation_ms.p99, f.variation_not_judged),
                        .threshold = fmt::format("≤ {:.3f} ms", criteria.max_delay_variation_ms),
                        .pass = true,
                        .judged = false});
  } else if (f.delay_samples == 0) {
    results.push_back(unmeasured(variation, "no frame arrived",
                                 fmt::format("≤ {:.3f} ms", criteria.max_delay_variation_ms)));
  } else {
    results.push_back(
        at_most(variation, f.delay_variation_ms.p99, criteria.max_delay_variation_ms, "ms"));
  }
  results.push_back(
      CriterionResult{.name = "frame loss ratio",
                      .measured = fmt::format("{} ({} of {} frames)", ratio_text(f.loss_ratio),
                                              f.frames_lost, f.frames_offered),
                      .threshold = fmt::format("≤ {}", ratio_text(criteria.max_loss_ratio)),
                      .margin = fmt::format("{:+.2g}", criteria.max_loss_ratio - f.loss_ratio),
                      .pass = f.loss_ratio <= criteria.max_loss_ratio});
  if (soak) {
    results.push_back(CriterionResult{
        .name = "availability",
        .measured = fmt::format("{:.4f} % ({} severely errored of {} s)", f.availability * 100,
                                f.severely_errored_seconds, f.seconds_counted),
        .threshold = fmt::format("≥ {:.4f} %", criteria.min_availability * 100),
        .margin = fmt::format("{:+.4f} %", (f.availability - criteria.min_availability) * 100),
        .pass = f.availability >= criteria.min_availability});
  }
  return results;
}

}  // namespace hdstream
