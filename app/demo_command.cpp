#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <string_view>
#include <thread>

#include "app/command_run.hpp"
#include "app/commands.hpp"
#include "app/demo_size.hpp"
#include "app/receivers.hpp"
#include "app/send_plan.hpp"
#include "app/senders.hpp"
#include "common/cpu_room.hpp"
#include "common/display_env.hpp"
#include "common/log.hpp"
#include "common/units.hpp"
#include "media/formats.hpp"
#include "media_module/media_module.hpp"
#include "pipeline/media_sources.hpp"
#include "stats/summary.hpp"

namespace hdstream {
namespace {

// Where the pictures go when the demo shows them: Qt's choice of platform (QT_QPA_PLATFORM, else
// Wayland where only a compositor is there).
DemoScreens demo_screens(bool shown) {
  if (!shown) return DemoScreens::none;
  const auto set = [](const char* name) {
    const char* value = std::getenv(name);
    return value != nullptr && *value != '\0' ? std::string_view(value) : std::string_view();
  };
  const std::string_view platform = set("QT_QPA_PLATFORM");
  if (platform.starts_with("wayland")) return DemoScreens::wayland;
  if (platform.empty() && set("DISPLAY").empty() && !set("WAYLAND_DISPLAY").empty()) {
    return DemoScreens::wayland;
  }
  return DemoScreens::x11;
}

// The demo's default: as many of its feeds as this machine decodes (and shows) within the
// demo's CPU budget, said in one line (a warning when that is fewer); --streams or --source
// decide alone.
std::size_t demo_streams(const DemoOptions& options, const FormatPreset& format,
                         DemoScreens screens) {
  if (options.streams_given || !options.sources.empty() || format.default_source != "bars" ||
      !is_compressed(format.feed.codec)) {
    return options.streams;
  }
  const CpuRoom room;
  const double seconds = media_module().bars_decode_seconds(format.feed);
  const DemoMachine machine{std::max(1u, std::thread::hardware_concurrency()),
                            room.cores_left(std::chrono::milliseconds(500))};
  const DemoSize size =
      size_demo(options.streams, seconds, format.feed.frames_per_second(), machine, screens);
  if (size.feeds < size.wanted) {
    logger("hdstream")->warn("{}", describe(size));
  } else {
    logger("hdstream")->info("{}", describe(size));
  }
  return size.feeds;
}

}  // namespace

// Senders and receivers in one process over loopback TCP: the whole data path, no setup.
int run_demo(const DemoOptions& requested) {
  const PresetStore store = load_presets(requested.common.config_file);
  const FormatPreset format = resolve_format(store, requested.format);
  const bool gui = want_gui(requested.common, /*default_on=*/true);
  // Moving pictures when there is a screen; otherwise decode and discard (still proves the
  // decoders keep up). Synthetic feeds are not video: nothing to decode.
  // With a screen, "auto" is a multiview beside the panel: every feed at a glance, with the
  // numbers next to it.
  std::vector<std::string> output_specs = requested.outputs;
  bool auto_multiview = false;
  bool screens = gui;
  for (auto& spec : output_specs) {
    if (spec == "auto") {
      auto_multiview = display_available();
      spec = auto_multiview ? "multiview" : "null";
    }
    screens |= spec != "null" && !spec.starts_with("file:");
  }
  DemoOptions options = requested;
  options.streams = demo_streams(requested, format, demo_screens(screens));
  CommandRun run(options.common);
  // Sender lines only in JSON: the text console shows the receiving side.
  StatsRegistry& sent =
      run.add_registry(Role::send, options.streams, "tcp", {.lines = Lines::json_only});
  StatsRegistry& received = run.add_registry(Role::recv, options.streams, "tcp");

  MediaOutput media;
  try {
    media = parse_outputs(output_specs, options.streams, options.fullscreen, options.layout);
  } catch (const SpecError& error) {
    throw UsageError(error.what());
  }
  media.audio_output = options.audio_output;
  media.silence_alarm = options.silence_alarm;
  if (auto_multiview && gui) {
    for (auto& target : media.targets) {
      if (target.kind == OutputTarget::Kind::multiview) target.beside_panel = true;
    }
  }
  const auto pictures = open_pictures(media, options.streams, {{&received, "loopback"}});
  const std::string output_names = media.describe();
  // The run ends when both groups have: the senders after their last frame (or Ctrl-C, at
  // their next frame, with END), the receivers once every feed has ended.
  ReceiverGroup receivers(run.runtime(), received, Wire{TransportKind::tcp},
                          {.listen = Endpoint{"127.0.0.1", 0}, .key = options.common.key},
                          run.part(), std::move(media));
  receivers.start();

  SendPlan plan;
  plan.options.dest = receivers.local_endpoint().to_string();
  plan.options.streams = options.streams;
  plan.options.rate_bps = options.rate_bps;
  plan.options.duration = options.duration;
  plan.options.format = options.format;
  plan.options.sources = options.sources;
  plan.options.audio_sources = options.audio_sources;
  plan.options.audio_channels = options.audio_channels;
  plan.options.common.key = options.common.key;
  plan.destination = resolve_destination(store, plan.options.dest);
  plan.format = format;
  plan.endpoints.assign(options.streams, receivers.local_endpoint());
  SenderGroup senders(run.runtime(), sent, plan_feeds(plan), run.part());
  logger("hdstream")
      ->info("demo: {} {} feed{} over loopback tcp into --output {} for {} (Ctrl-C ends it)",
             options.streams, options.format, options.streams == 1 ? "" : "s", output_names,
             options.duration.count() ? format_duration(options.duration) : std::string("ever"));
  run.start_stats();
  senders.start();
  // The demo is the show-piece: the panel opens by default whenever a display exists.
  const std::string endpoint = receivers.local_endpoint().to_string();
  run.run_with_frontends(gui, fmt::format("hdstream demo \u00b7 {} feeds", options.streams),
                         {endpoint, endpoint}, pictures.get());
  receivers.finish_media();

  const Snapshot last_sent = sent.sample();
  const Summary send_summary = summarize(last_sent);
  const Snapshot last_received = received.sample();
  const Summary recv_summary = summarize(last_received);
  run.report().far_end(last_sent);
  run.report().media(last_received);
  run.report().summary(send_summary);
  run.report().summary(recv_summary);
  Summary both = recv_summary;
  both.pass = send_summary.pass && recv_summary.pass;
  return run.exit_code(both, senders.failures() > 0);
}

}  // namespace hdstream
