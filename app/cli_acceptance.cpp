#include "app/cli_acceptance.hpp"

#include "app/cli_validators.hpp"
#include "common/units.hpp"

namespace hdstream {

void add_acceptance_options(CLI::App& command, AcceptanceOptions& acceptance,
                            AcceptanceText& text) {
  const std::string group = "Acceptance (--acceptance)";
  command
      .add_flag("--acceptance", acceptance.enabled,
                "Run a link acceptance test: a ramp of steps up to the planned rate, then a soak, "
                "judged against the destination's [sla] (docs/ACCEPTANCE.md)")
      ->group(group);
  add_checked(
      command, "--steps", text.steps, "Ramp steps, percent of the planned rate",
      unit_validator("PERCENT,...", [](const std::string& t) { return parse_percent_list(t); }))
      ->group(group);
  add_checked(command, "--step-duration", text.step_duration, "Length of each ramp step", kDuration)
      ->group(group);
  add_checked(command, "--soak", text.soak, "Length of the soak at 100 % (e.g. 15m, 2h, 24h)",
              kDuration)
      ->group(group);
  command
      .add_flag("--one-way-delay", acceptance.one_way_delay,
                "The two ends' clocks agree (PTP, chrony): report frame delay one way, not as "
                "half the RTT")
      ->group(group);
  command
      .add_option("--min-rate", text.min_rate,
                  "Criterion: information rate, a percentage of the rate offered (99%) or a rate "
                  "per feed at 100 % (265M)")
      ->check(unit_validator("PERCENT|RATE",
                             [](const std::string& t) {
                               return t.ends_with('%') ? parse_percentage(t)
                                                       : static_cast<double>(parse_rate_bps(t));
                             }))
      ->group(group);
  command.add_option("--max-delay", text.max_delay, "Criterion: frame delay, e.g. 150ms")
      ->check(kDuration)
      ->group(group);
  command
      .add_option("--max-delay-variation", text.max_delay_variation,
                  "Criterion: frame delay variation (p99), e.g. 10ms")
      ->check(kDuration)
      ->group(group);
  command.add_option("--max-loss-ratio", text.max_loss_ratio, "Criterion: frame loss ratio")
      ->check(CLI::Range(0.0, 1.0))
      ->group(group);
  command
      .add_option("--min-availability", text.min_availability,
                  "Criterion: soak availability, e.g. 0.999")
      ->check(CLI::Range(0.0, 1.0))
      ->group(group);
  command.add_option("--engineer", acceptance.engineer, "Sign-off: the engineer's name")
      ->group(group);
  command.add_option("--link-id", acceptance.link_id, "Sign-off: the link's identifier")
      ->group(group);
  command.add_option("--sign-off", acceptance.sign_off, "Sign-off: free text for the report")
      ->group(group);
}

void finish_acceptance_options(AcceptanceOptions& acceptance, const AcceptanceText& text,
                               const std::optional<std::filesystem::path>& report) {
  if (acceptance.enabled && report) {
    const std::string extension = report->extension().string();
    if (extension != ".html" && extension != ".md" && extension != ".json") {
      throw CLI::ValidationError("--report",
                                 "an acceptance report is PATH.html, PATH.md or PATH.json");
    }
  }
  acceptance.steps_percent = parse_percent_list(text.steps);
  acceptance.step_duration = parse_duration(text.step_duration);
  acceptance.soak = parse_duration(text.soak);
  if (acceptance.step_duration < std::chrono::seconds(1)) {
    throw CLI::ValidationError("--step-duration", "a step needs at least 1s");
  }
  if (acceptance.soak < std::chrono::seconds(1)) {
    throw CLI::ValidationError("--soak", "the soak needs at least 1s");
  }
  SlaPreset& sla = acceptance.sla;
  if (!text.min_rate.empty()) {
    if (text.min_rate.ends_with('%')) {
      const double percent = parse_percentage(text.min_rate);
      if (percent > 100)
        throw CLI::ValidationError("--min-rate", "at most 100% of the rate offered");
      sla.min_rate_fraction = percent / 100;
    } else {
      sla.min_rate_bps = parse_rate_bps(text.min_rate);
    }
  }
  if (!text.max_delay.empty()) sla.max_delay = parse_duration(text.max_delay);
  if (!text.max_delay_variation.empty()) {
    sla.max_delay_variation = parse_duration(text.max_delay_variation);
  }
  sla.max_loss_ratio = text.max_loss_ratio;
  sla.min_availability = text.min_availability;
}

}  // namespace hdstream
