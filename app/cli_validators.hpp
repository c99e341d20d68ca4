// What every subcommand's options share: CLI11 validators made from our unit parsers (their
// error text is the parser's one line), and options whose text such a validator checks.
//   add_checked(command, "--soak", text.soak, "Length of the soak", kDuration);
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "common/units.hpp"

namespace hdstream {

// A CLI11 validator from one of our unit parsers: the error text is the parser's message.
template <typename Parse>
CLI::Validator unit_validator(std::string name, Parse parse) {
  return CLI::Validator(
      [parse](std::string& text) -> std::string {
        try {
          parse(text);
          return {};
        } catch (const UnitError& error) {
          return error.what();
        }
      },
      std::move(name));
}

extern const CLI::Validator kRate;      // parse_rate_bps
extern const CLI::Validator kDuration;  // parse_duration
extern const CLI::Validator kBytes;     // parse_bytes

// An option whose text a validator checks (kDuration, kBytes, kRate), default shown in --help.
CLI::Option* add_checked(CLI::App& command, const std::string& name, std::string& text,
                         const std::string& help, const CLI::Validator& check);

}  // namespace hdstream
