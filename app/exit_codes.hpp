// Process exit codes (the CLI contract in docs/CLI.md).
#pragma once

namespace hdstream::exit_code {
inline constexpr int success = 0;
inline constexpr int runtime_failure = 1;  // could not connect, listen, or a session broke
inline constexpr int usage = 2;            // bad arguments or configuration: one clear line
inline constexpr int verdict_failed = 3;   // ran, but drops or thresholds failed the verdict
inline constexpr int interrupted = 130;    // SIGINT / SIGTERM
}  // namespace hdstream::exit_code
