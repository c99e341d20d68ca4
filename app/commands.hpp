// The subcommands. Each returns the process exit code (app/exit_codes.hpp) and throws
// UsageError / EndpointError for configuration the user must fix.
#pragma once

#include "app/options.hpp"
#include "stats/snapshot.hpp"

namespace hdstream {

int run_send(const SendOptions& options);
int run_recv(const RecvOptions& options);
int run_demo(const DemoOptions& options);
int run_check(const CheckOptions& options);
int run_presets(const PresetsOptions& options);
int run_bench(const BenchOptions& options);
int run_monitor(const MonitorOptions& options);

// interrupted -> 130, a feed that could not run -> 1, failed verdict -> 3, else 0.
int exit_code_for(const Summary& summary, bool interrupted, bool runtime_failure);

}  // namespace hdstream
