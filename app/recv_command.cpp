#include <fmt/format.h>

#include "app/command_run.hpp"
#include "app/commands.hpp"
#include "app/receivers.hpp"
#include "app/srt_settings.hpp"
#include "common/endpoint.hpp"
#include "pipeline/media_sources.hpp"
#include "stats/summary.hpp"

namespace hdstream {

int run_recv(const RecvOptions& options) {
  const Endpoint listen = parse_endpoint(options.listen, /*listening=*/true);
  CommandRun run(options.common);
  StatsRegistry& stats =
      run.add_registry(Role::recv, options.streams, std::string(to_string(options.transport)));

  MediaOutput media;
  try {
    media = parse_outputs(options.outputs, options.streams, options.fullscreen, options.layout);
  } catch (const SpecError& error) {
    throw UsageError(error.what());
  }
  media.recording_names = std::make_shared<RecordingNames>(options.overwrite);
  media.audio_output = options.audio_output;
  media.silence_alarm = options.silence_alarm;
  media.queue_frames = options.decode_queue_frames;
  media.debug_decode_delay = options.debug_decode_delay;
  // The listen address is not known yet: the multiview labels its tiles by stream.
  const auto pictures = open_pictures(media, options.streams, {{&stats, options.listen}});
  const SrtSettings srt =
      options.transport == TransportKind::srt ? srt_settings(options) : SrtSettings{};
  // Ends when every stream has had its session end, the duration passes, or on a signal.
  ReceiverGroup receivers(run.runtime(), stats, Wire{options.transport, options.mux},
                          {.listen = listen,
                           .max_memory_bytes = options.max_memory_bytes,
                           .srt = srt,
                           .key = options.common.key,
                           .skew = options.skew},
                          run.part(), std::move(media));
  run.on_finish([&] { receivers.stop(); });
  receivers.start();
  run.finish_on_interrupt();
  run.finish_after(options.duration);
  run.start_stats();
  const std::string endpoint = receivers.local_endpoint().to_string();
  run.run_with_frontends(want_gui(options.common, /*default_on=*/false),
                         fmt::format("hdstream recv on {}", endpoint), {endpoint}, pictures.get());
  receivers.finish_media();  // decoders drain and files get their index before the summary

  const Snapshot last = stats.sample();
  run.report().media(last);
  run.report().protection(last);
  run.report().outages(last);
  if (const LatencySummary latency = stats.latency().summary(); latency.frames > 0) {
    run.report().latency(Role::recv, latency);
  }
  const Summary summary = summarize(last);
  run.report().summary(summary);
  return run.exit_code(summary, /*runtime_failure=*/false);
}

}  // namespace hdstream
