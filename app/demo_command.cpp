#include <atomic>
#include <memory>

#include <fmt/format.h>

#include "app/commands.hpp"
#include "app/exit_codes.hpp"
#include "app/frontends.hpp"
#include "app/receivers.hpp"
#include "app/runtime.hpp"
#include "app/send_plan.hpp"
#include "app/senders.hpp"
#include "common/display_env.hpp"
#include "common/log.hpp"
#include "common/units.hpp"
#include "pipeline/media_sources.hpp"

namespace hdstream {

// Senders and receivers in one process over loopback TCP: the whole data path, no setup.
int run_demo(const DemoOptions& options) {
  const PresetStore store = load_presets(options.common.config_file);
  StatsOutput output(options.common);
  Runtime runtime;
  StatsRegistry sent(Role::send, options.streams, "tcp");
  StatsRegistry received(Role::recv, options.streams, "tcp");

  std::atomic<int> parts_running{2};  // the sender group and the receiver group
  auto part_done = [&] {
    if (--parts_running == 0) runtime.shutdown();
  };
  // Moving pictures when there is a screen; otherwise decode and discard (still proves the
  // decoders keep up). Synthetic feeds are not video: nothing to decode.
  // With a screen, "auto" is a multiview beside the panel: every feed at a glance, with the
  // numbers next to it.
  const bool gui = want_gui(options.common, /*default_on=*/true);
  std::vector<std::string> output_specs = options.outputs;
  bool auto_multiview = false;
  for (auto& spec : output_specs) {
    if (spec != "auto") continue;
    auto_multiview = display_available();
    spec = auto_multiview ? "multiview" : "null";
  }
  MediaOutput media;
  try {
    media = parse_outputs(output_specs, options.streams, options.fullscreen, options.layout);
  } catch (const SpecError& error) {
    throw UsageError(error.what());
  }
  if (auto_multiview && gui) {
    for (auto& target : media.targets) {
      if (target.kind == OutputTarget::Kind::multiview) target.beside_panel = true;
    }
  }
  const auto pictures = open_pictures(media, options.streams, {{&received, "loopback"}});
  const std::string output_names = media.describe();
  std::unique_ptr<ReceiverGroup> receivers;
  receivers = std::make_unique<ReceiverGroup>(
      runtime, received, Wire{TransportKind::tcp}, Endpoint{"127.0.0.1", 0},
      [&] {
        receivers->stop();
        part_done();
      },
      std::move(media), SrtSettings{}, options.common.key);
  receivers->start();

  SendPlan plan;
  plan.options.dest = receivers->local_endpoint().to_string();
  plan.options.streams = options.streams;
  plan.options.rate_bps = options.rate_bps;
  plan.options.duration = options.duration;
  plan.options.format = options.format;
  plan.options.sources = options.sources;
  plan.options.common.key = options.common.key;
  plan.destination = resolve_destination(store, plan.options.dest);
  plan.format = resolve_format(store, plan.options.format);
  plan.endpoints.assign(options.streams, receivers->local_endpoint());
  SenderGroup senders(runtime, sent, plan, part_done);
  // On Ctrl-C the feeds stop at their next frame and send END; the receivers then finish.
  logger("hdstream")
      ->info("demo: {} {} feeds over loopback tcp into --output {} for {} (Ctrl-C ends it)",
             options.streams, options.format, output_names,
             options.duration.count() ? format_duration(options.duration) : std::string("ever"));
  runtime.start_stats(options.common.interval, [&] {
    if (options.common.stats_format == StatsFormat::json) output.report().interval(sent.sample());
    output.report().interval(received.sample());
  });
  senders.start();
  // The demo is the show-piece: the panel opens by default whenever a display exists.
  const std::string endpoint = receivers->local_endpoint().to_string();
  run_with_frontends(runtime, options.common, {{&sent, endpoint}, {&received, endpoint}}, gui,
                     fmt::format("hdstream demo \u00b7 {} feeds", options.streams), pictures.get());
  receivers->finish_media();

  const Snapshot last_sent = sent.sample();
  const Summary send_summary = summarize(last_sent);
  const Snapshot last_received = received.sample();
  const Summary recv_summary = summarize(last_received);
  output.report().far_end(last_sent);
  output.report().media(last_received);
  output.report().summary(send_summary);
  output.report().summary(recv_summary);
  Summary both = recv_summary;
  both.pass = send_summary.pass && recv_summary.pass;
  return exit_code_for(both, runtime.interrupted(), senders.failures() > 0);
}

}  // namespace hdstream
