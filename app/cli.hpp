// Command-line parsing (CLI11) into typed options.
//   Command command = parse_command_line(argc, argv);   // throws CLI::ParseError
#pragma once

#include <variant>

#include "app/options.hpp"

namespace hdstream {

// Parsing already answered (help printed, or a usage error reported): exit with this code.
struct ExitNow {
  int code = 0;
};

using Command = std::variant<SendOptions, RecvOptions, DemoOptions, CheckOptions, PresetsOptions,
                             BenchOptions, MonitorOptions, ExitNow>;

// Parses argv. With no subcommand but options (`hdstream --streams 5 --dest portland`), the
// command is `send`. Prints help for --help, and one line on stderr for a usage error.
Command parse_command_line(int argc, const char* const* argv);

}  // namespace hdstream
