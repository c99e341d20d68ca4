#include <fmt/format.h>

#include "app/commands.hpp"
#include "app/frontends.hpp"
#include "app/receivers.hpp"
#include "app/runtime.hpp"
#include "app/srt_settings.hpp"
#include "common/endpoint.hpp"
#include "common/log.hpp"
#include "pipeline/media_sources.hpp"

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
  MediaOutput media;
  try {
    media = parse_outputs(options.outputs, options.streams, options.fullscreen, options.layout);
  } catch (const SpecError& error) {
    throw UsageError(error.what());
  }
  media.queue_frames = options.decode_queue_frames;
  media.debug_decode_delay = options.debug_decode_delay;
  // The listen address is not known yet: the multiview labels its tiles by stream.
  const auto pictures = open_pictures(media, options.streams, {{&stats, options.listen}});
  const SrtSettings srt =
      options.transport == TransportKind::srt ? srt_settings(options) : SrtSettings{};
  receivers = std::make_unique<ReceiverGroup>(runtime, stats, Wire{options.transport, options.mux},
                                              listen, finish, std::move(media), srt,
                                              options.common.key, options.max_memory_bytes);
  receivers->start();
  runtime.on_interrupt(finish);

  if (options.duration.count() > 0) runtime.deadline(options.duration, finish);
  runtime.start_stats(options.common.interval, [&] { output.report().interval(stats.sample()); });
  run_with_frontends(runtime, options.common, {{&stats, receivers->local_endpoint().to_string()}},
                     want_gui(options.common, /*default_on=*/false),
                     fmt::format("hdstream recv on {}", receivers->local_endpoint().to_string()),
                     pictures.get());
  receivers->finish_media();  // decoders drain and files get their index before the summary

  const Snapshot last = stats.sample();
  output.report().media(last);
  output.report().outages(last);
  if (const LatencySummary latency = stats.latency().summary(); latency.frames > 0) {
    output.report().latency(Role::recv, latency);
  }
  const Summary summary = summarize(last);
  output.report().summary(summary);
  return exit_code_for(summary, runtime.interrupted(), /*runtime_failure=*/false);
}

}  // namespace hdstream
