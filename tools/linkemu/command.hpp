// Runs a system command (argv, no shell) and captures its output: for `ip` during bring-up and
// tear-down only, never in the data path.
//   auto r = run_command({"ip", "netns", "add", "hds1-a"});  if (!r.ok()) fail(r.output);
#pragma once

#include <string>
#include <vector>

namespace hdstream::linkemu {

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together, trailing newline trimmed
  bool ok() const { return exit_code == 0; }
};

CommandResult run_command(const std::vector<std::string>& argv);

// Like run_command, but throws std::runtime_error naming the command and its output on failure.
std::string run_checked(const std::vector<std::string>& argv);

}  // namespace hdstream::linkemu
