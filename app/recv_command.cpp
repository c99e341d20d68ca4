#include <fmt/format.h>

#include "app/commands.hpp"
#include "app/frontends.hpp"
#include "app/receivers.hpp"
#include "app/runtime.hpp"
#include "common/log.hpp"
#include "transport/endpoint.hpp"

namespace hdstream {

int run_recv(const RecvOptions& options) {
  const Endpoint listen = parse_endpoint(options.listen, /*listening=*/true);
  StatsOutput output(options.common);
  Runtime runtime;
  StatsRegistry stats(Role::recv, options.streams, std::string(to_string(options.transport)));

  // Ends when every stream has had its session end, the duration passes, or on a signal.
  std::atomic<bool> finishing{false};
  std::unique_ptr<ReceiverGroup> receivers;
  auto finish = [&] {
    if (finishing.exchange(true)) return;
    receivers->stop();
    runtime.shutdown();
  };
  receivers = std::make_unique<ReceiverGroup>(runtime, stats, options.transport, listen, finish,
                                              options.common.key);
  receivers->start();
  runtime.on_interrupt(finish);

  if (options.duration.count() > 0) runtime.deadline(options.duration, finish);
  runtime.start_stats(options.common.interval, [&] { output.report().interval(stats.sample()); });
  run_with_frontends(runtime, options.common, {{&stats, receivers->local_endpoint().to_string()}},
                     want_gui(options.common, /*default_on=*/false),
                     fmt::format("hdstream recv on {}", receivers->local_endpoint().to_string()));

  const Summary summary = summarize(stats.sample());
  output.report().summary(summary);
  return exit_code_for(summary, runtime.interrupted(), /*runtime_failure=*/false);
}

}  // namespace hdstream
