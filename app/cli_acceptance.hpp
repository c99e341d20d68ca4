// `check --acceptance`'s options (docs/ACCEPTANCE.md): the ramp, the soak, the criteria that
// override the destination's [sla], the sign-off. Parsed as text, converted once parsing
// succeeded.
//   AcceptanceText text;  add_acceptance_options(*check, options.acceptance, text);
//   ...  finish_acceptance_options(options.acceptance, text, options.report);
#pragma once

#include <CLI/CLI.hpp>

#include <filesystem>
#include <optional>
#include <string>

#include "app/options.hpp"

namespace hdstream {

struct AcceptanceText {
  std::string steps = "25,50,75,100", step_duration = "30s", soak = "15m";
  std::string min_rate, max_delay, max_delay_variation;
  std::optional<double> max_loss_ratio, min_availability;
};

void add_acceptance_options(CLI::App& command, AcceptanceOptions& acceptance, AcceptanceText& text);

// Throws CLI::ValidationError naming the option to fix; `report` must be .html, .md or .json.
void finish_acceptance_options(AcceptanceOptions& acceptance, const AcceptanceText& text,
                               const std::optional<std::filesystem::path>& report);

}  // namespace hdstream
