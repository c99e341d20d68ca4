#include "app/cli_validators.hpp"

namespace hdstream {

const CLI::Validator kRate =
    unit_validator("RATE", [](const std::string& t) { return parse_rate_bps(t); });
const CLI::Validator kDuration =
    unit_validator("DURATION", [](const std::string& t) { return parse_duration(t); });
const CLI::Validator kBytes =
    unit_validator("SIZE", [](const std::string& t) { return parse_bytes(t); });

CLI::Option* add_checked(CLI::App& command, const std::string& name, std::string& text,
                         const std::string& help, const CLI::Validator& check) {
  return command.add_option(name, text, help)->check(check)->capture_default_str();
}

}  // namespace hdstream
