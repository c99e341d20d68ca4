// The subcommands. Each returns the process exit code (app/exit_codes.hpp) and throws
// UsageError / EndpointError for configuration the user must fix.
#pragma once

#include "app/options.hpp"

namespace hdstream {

int run_send(const SendOptions& options);
int run_recv(const RecvOptions& options);
int run_demo(const DemoOptions& options);
int run_check(const CheckOptions& options);
// check --acceptance (app/acceptance_command.cpp).
int run_acceptance(const CheckOptions& options);
int run_presets(const PresetsOptions& options);
int run_bench(const BenchOptions& options);
int run_monitor(const MonitorOptions& options);

}  // namespace hdstream
