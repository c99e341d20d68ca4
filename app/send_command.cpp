#include <atomic>
#include <cmath>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "app/commands.hpp"
#include "app/exit_codes.hpp"
#include "app/runtime.hpp"
#include "app/senders.hpp"
#include "common/log.hpp"
#include "common/units.hpp"
#include "presets/presets.hpp"

namespace hdstream {

int exit_code_for(const Summary& summary, bool interrupted, bool runtime_failure) {
  if (interrupted) return exit_code::interrupted;
  if (runtime_failure) return exit_code::runtime_failure;
  return summary.pass ? exit_code::success : exit_code::verdict_failed;
}

int run_send(const SendOptions& options) {
  const Destination destination = resolve_destination(options.dest);
  StatsOutput output(options.common);
  Runtime runtime;
  StatsRegistry stats(Role::send, options.streams, std::string(to_string(options.transport)));

  SenderGroup senders(runtime, stats, options, destination.endpoint, [&] { runtime.shutdown(); });
  logger("hdstream")->info("sending {} {} feed(s) to {} ({})", options.streams, options.format,
                           destination.name,
                           destination.endpoint.to_string());
  runtime.start_stats(options.common.interval, [&] { output.report().interval(stats.sample()); });
  senders.start();
  runtime.run();

  const Summary summary = summarize(stats.sample());
  output.report().summary(summary);
  return exit_code_for(summary, runtime.interrupted(), senders.failures() > 0);
}

}  // namespace hdstream
