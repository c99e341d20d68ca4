#include "app/cli.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "app/cli_acceptance.hpp"
#include "app/cli_options.hpp"
#include "app/cli_validators.hpp"
#include "common/provenance.hpp"
#include "common/units.hpp"
#include "presets/presets.hpp"
#include "protocol/feed_limits.hpp"
#include "transport/factory.hpp"

namespace hdstream {
namespace {

// Options are parsed as text and converted once parsing succeeded; each subcommand registers
// the conversion to run if it was the one chosen.
using Finisher = std::function<Command()>;

Finisher add_send(CLI::App* command) {
  auto send = std::make_shared<SendOptions>();
  auto text = std::make_shared<SendText>();
  auto common = std::make_shared<CommonText>();
  add_send_options(*command, *send, *text);
  add_checked(*command, "--duration", text->duration,
              "How long to send, e.g. 10s; 0 runs until interrupted", kDuration);
  add_mux(*command, text->mux,
          "srt: wire framing; ts = standard MPEG-TS (MPEG-2 4:2:2 at --rate, default 50M) for "
          "ffplay/srt-live-transmit/GStreamer");
  auto* ts_audio = command
                       ->add_option("--ts-audio", text->ts_audio,
                                    "--mux ts: the sound as SMPTE 302M PCM (what broadcast TS "
                                    "gear expects) or AAC-LC (64 kb/s a channel)")
                       ->check(CLI::IsMember({"302m", "aac"}))
                       ->capture_default_str();
  add_common(*command, send->common, *common);
  return [command, send, text, common, ts_audio]() -> Command {
    finish_common(*command, send->common, *common);
    finish_send_options(*send, *text);
    send->mux = *mux_from_string(text->mux);
    if (ts_audio->count() > 0 && send->mux != Mux::ts) {
      throw CLI::ValidationError("--ts-audio", "only applies to --mux ts");
    }
    send->ts_audio = *ts_audio_from_string(text->ts_audio);
    return *send;
  };
}

Finisher add_recv(CLI::App* command) {
  auto recv = std::make_shared<RecvOptions>();
  auto text = std::make_shared<std::pair<std::string, std::string>>(spell_duration(recv->duration),
                                                                    to_string(recv->transport));
  auto common = std::make_shared<CommonText>();
  command->add_option("--listen", recv->listen, "Listen address: [HOST]:PORT")->required();
  add_streams(*command, recv->streams);
  add_transport(*command, text->second);
  add_outputs(*command, recv->outputs, recv->fullscreen, recv->layout, recv->audio_output,
              recv->silence_alarm,
              "Where received frames go: null (decode, discard), display, or "
              "file:PATTERN ({stream} = feed number; .mov/.mkv/.mxf, no re-encode), "
              "screen:N (fullscreen on screen N; screen:{stream}: feed i on screen i) or "
              "multiview[:N] (every feed tiled on screen N) or program[:N] (the feed "
              "cut to, on screen N). Repeat it to send every feed to several outputs");
  command->add_flag("--overwrite", recv->overwrite,
                    "Recordings (--output file:) replace existing files; without it an existing "
                    "file is kept and the recording takes the next free numbered name beside it "
                    "(feed0-2.mov)");
  command
      ->add_option("--decode-queue", recv->decode_queue_frames,
                   "Frames waiting for each decoder before the oldest is dropped")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  auto decode_delay = std::make_shared<std::string>("0");
  command->add_option("--debug-decode-delay", *decode_delay)
      ->check(kDuration)
      ->group("");  // test hook: a deliberately slow decoder
  add_checked(*command, "--duration", text->first,
              "Stop after this long; 0 waits until every stream has ended", kDuration);
  auto latency = std::make_shared<std::string>("120ms");
  add_checked(*command, "--latency", *latency,
              "srt: the least latency to play at (SRT uses the larger of both ends'); "
              "hdstream senders announce theirs, and buffers are sized for it",
              kDuration);
  command
      ->add_option("--srt-fec", recv->srt_fec,
                   "srt: FEC every sender must use, as for send (libsrt merges it with a "
                   "sender's and refuses one that conflicts); without it a sender's own "
                   "--srt-fec is taken")
      ->check(kSrtFec);
  auto mux = std::make_shared<std::string>("none");
  add_mux(*command, *mux, "srt: wire framing; ts = MPEG-TS from ffmpeg/GStreamer");
  auto max_memory = std::make_shared<std::string>("auto");
  add_max_memory(*command, *max_memory);
  auto skew = std::make_shared<std::string>();
  add_checked(*command, "--skew", *skew,
              "Two-path feeds (send --dest-b): how long a frame one path lacks waits for the "
              "other; default: the paths' RTT difference + 4 x jitter + one frame",
              kDuration);
  add_common(*command, recv->common, *common);
  return [command, recv, text, common, decode_delay, latency, max_memory, mux, skew]() -> Command {
    finish_common(*command, recv->common, *common);
    recv->max_memory_bytes = parse_max_memory(*max_memory);
    recv->duration = parse_duration(text->first);
    recv->transport = *transport_from_string(text->second);
    recv->latency = parse_duration(*latency);
    if (!skew->empty()) {
      recv->skew = parse_duration(*skew);
      if (*recv->skew > std::chrono::milliseconds(kMaxLatencyBudgetMs)) {
        throw CLI::ValidationError("--skew", fmt::format("at most {} ms", kMaxLatencyBudgetMs));
      }
    }
    if (!recv->srt_fec.empty() && recv->transport != TransportKind::srt) {
      throw CLI::ValidationError("--srt-fec", "only applies to --transport srt");
    }
    decide_key(recv->common, recv->transport);
    recv->mux = finish_mux(*mux, recv->transport);
    if (std::ranges::count(recv->outputs, "auto") > 0) {
      throw CLI::ValidationError("--output", "auto is for demo only");
    }
    if (recv->overwrite && std::ranges::none_of(recv->outputs, [](const std::string& output) {
          return output.starts_with("file:");
        })) {
      throw CLI::ValidationError("--overwrite", "only applies to --output file:PATTERN");
    }
    recv->debug_decode_delay =
        std::chrono::duration_cast<std::chrono::microseconds>(parse_duration(*decode_delay));
    return *recv;
  };
}

Finisher add_demo(CLI::App* command) {
  auto demo = std::make_shared<DemoOptions>();
  auto text = std::make_shared<std::pair<std::string, std::string>>(spell_rate(demo->rate_bps),
                                                                    spell_duration(demo->duration));
  auto common = std::make_shared<CommonText>();
  CLI::Option* streams = add_streams(*command, demo->streams);
  add_checked(*command, "--rate", text->first, "Bit rate per feed", kRate);
  add_checked(*command, "--duration", text->second, "How long to run; 0 runs until interrupted",
              kDuration);
  command->add_option("--format", demo->format, "Feed format preset")->capture_default_str();
  add_sources(*command, demo->sources);
  add_audio_sources(*command, demo->audio_sources, demo->audio_channels);
  add_outputs(*command, demo->outputs, demo->fullscreen, demo->layout, demo->audio_output,
              demo->silence_alarm,
              "auto (display if there is one, else null), null, display, file:PATTERN, "
              "screen:N, multiview[:N] or program[:N]; repeatable");
  add_common(*command, demo->common, *common);
  return [command, demo, text, common, streams]() -> Command {
    finish_common(*command, demo->common, *common);
    demo->streams_given = streams->count() > 0;
    decide_key(demo->common, TransportKind::tcp);
    demo->rate_bps = parse_rate_bps(text->first);
    demo->duration = parse_duration(text->second);
    return *demo;
  };
}

Finisher add_check(CLI::App* command) {
  auto check = std::make_shared<CheckOptions>();
  auto text = std::make_shared<SendText>();
  auto probe = std::make_shared<std::string>("3s");
  auto common = std::make_shared<CommonText>();
  auto acceptance = std::make_shared<AcceptanceText>();
  add_send_options(*command, check->send, *text);
  add_checked(*command, "--duration", *probe, "Length of the capacity probe", kDuration);
  add_acceptance_options(*command, check->acceptance, *acceptance);
  add_common(*command, check->common, *common);
  return [command, check, text, probe, common, acceptance]() -> Command {
    finish_common(*command, check->common, *common);
    check->send.common = check->common;  // before: --latency given is read from it
    finish_send_options(check->send, *text);
    check->probe_duration = parse_duration(*probe);
    if (check->probe_duration < std::chrono::milliseconds(500)) {
      throw CLI::ValidationError("--duration", "the capacity probe needs at least 500ms");
    }
    check->report = check->send.report;
    finish_acceptance_options(check->acceptance, *acceptance, check->report);
    return *check;
  };
}

Finisher add_bench(CLI::App* command) {
  auto bench = std::make_shared<BenchOptions>();
  bench->send.congestion_control = "bbr";  // bench's defaults: bbr, 10 s, unpaced
  bench->send.duration = std::chrono::seconds(10);
  bench->send.rate_bps = 0;
  auto common = std::make_shared<CommonText>();
  struct Text {
    std::string rate, duration, rtt, chunk, frame, transport, max_memory = "auto";
  };
  const SendOptions& defaults = bench->send;
  auto text = std::make_shared<Text>(
      Text{defaults.rate_bps == 0 ? "max" : spell_rate(defaults.rate_bps),
           spell_duration(defaults.duration), spell_duration(defaults.expected_rtt),
           spell_bytes(defaults.chunk_bytes), spell_bytes(bench->frame_bytes),
           std::string(to_string(defaults.transport))});
  auto* dest =
      command->add_option("--dest", bench->send.dest, "Send to HOST:PORT or a preset name");
  command->add_option("--listen", bench->listen, "Receive on [HOST]:PORT")->excludes(dest);
  add_streams(*command, bench->send.streams);
  add_transport(*command, text->transport);
  command->add_option("--rate", text->rate, "Per-stream rate cap, or max for unpaced")
      ->check(CLI::IsMember({"max", "0"}) | kRate)
      ->capture_default_str();
  add_checked(*command, "--duration", text->duration, "How long to send", kDuration);
  command->add_option("--cc", bench->send.congestion_control, "TCP congestion control")
      ->check(CLI::IsMember({"bbr", "cubic", "reno"}))
      ->capture_default_str();
  add_checked(*command, "--rtt", text->rtt, "Expected round-trip time; sizes socket buffers",
              kDuration);
  add_checked(*command, "--chunk-size", text->chunk, "Chunk payload size", kBytes);
  add_checked(*command, "--frame-size", text->frame, "Frame size when unpaced", kBytes);
  add_max_memory(*command, text->max_memory);
  command
      ->add_option("--distance-km", bench->distance_km,
                   "Path length; adds the land-speed-record metric (petabit-metres/s)")
      ->check(CLI::Range(0.0, 50000.0));
  auto report = std::make_shared<std::string>();
  command->add_option("--report", *report,
                      "Write a link report: Markdown with a PNG plot beside it, or one .html file");
  add_common(*command, bench->common, *common);
  return [command, bench, text, common, report]() -> Command {
    finish_common(*command, bench->common, *common);
    if (!report->empty()) bench->report = *report;
    if (bench->send.dest.empty() == bench->listen.empty()) {
      throw CLI::ValidationError("bench",
                                 "give exactly one of --dest (send) or --listen (receive)");
    }
    SendOptions& send = bench->send;
    send.common = bench->common;
    send.transport = *transport_from_string(text->transport);
    send.rate_bps = text->rate == "max" || text->rate == "0" ? 0 : parse_rate_bps(text->rate);
    send.duration = parse_duration(text->duration);
    send.expected_rtt = parse_duration(text->rtt);
    send.chunk_bytes = chunk_bytes(text->chunk);
    const auto frame = parse_bytes(text->frame);
    if (frame < 4096 || frame > (32u << 20)) {
      throw CLI::ValidationError("--frame-size", "must be between 4K and 32M");
    }
    bench->frame_bytes = static_cast<std::size_t>(frame);
    bench->max_memory_bytes = parse_max_memory(text->max_memory);
    // The listening side's transport is the command line's: its key is decided here. The
    // sending side's may come from its destination preset: run_bench_sender decides.
    if (!bench->listen.empty()) decide_key(bench->common, send.transport);
    return *bench;
  };
}

Finisher add_monitor(CLI::App* command) {
  auto monitor = std::make_shared<MonitorOptions>();
  auto common = std::make_shared<CommonText>();
  auto text = std::make_shared<std::pair<std::string, std::string>>("500ms", "0");
  auto http_config = std::make_shared<std::string>();
  command->add_option("hosts", monitor->hosts, "HOST:PORT of each hdstream --metrics-listen")
      ->required();
  command->add_option("--http-config", *http_config,
                      "Client settings for the hosts, as Prometheus's (tls_config, basic_auth): "
                      "HTTPS and a password for servers with a --web-config");
  add_checked(*command, "--poll", text->first, "How often each host is polled", kDuration);
  add_checked(*command, "--duration", text->second, "Stop after this long; 0 runs until closed",
              kDuration);
  add_common(*command, monitor->common, *common);
  return [command, monitor, text, common, http_config]() -> Command {
    finish_common(*command, monitor->common, *common);
    monitor->poll = parse_duration(text->first);
    monitor->duration = parse_duration(text->second);
    if (monitor->poll < std::chrono::milliseconds(50)) {
      throw CLI::ValidationError("--poll", "must be at least 50ms");
    }
    if (!http_config->empty()) {
      try {
        monitor->http_config = load_http_client_config(*http_config);
      } catch (const WebConfigError& error) {
        throw CLI::ValidationError("--http-config", error.what());
      }
    }
    return *monitor;
  };
}

Finisher add_presets(CLI::App* command) {
  command->require_subcommand(1);
  auto presets = std::make_shared<PresetsOptions>();
  auto common = std::make_shared<CommonText>();
  auto* list = command->add_subcommand("list", "Destinations, formats and profiles in force");
  auto* show = command->add_subcommand("show", "One preset's values and their origins");
  show->add_option("NAME", presets->name, "Preset name")->required();
  for (auto* sub : {list, show}) {
    sub->add_option("--config", common->config, "Preset file with the highest precedence")
        ->envname("HDSTREAM_CONFIG");
  }
  return [command, show, presets, common]() -> Command {
    presets->action = show->parsed() ? "show" : "list";
    if (!common->config.empty()) presets->common.config_file = common->config;
    (void)command;
    return *presets;
  };
}

// Every subcommand, once: its name, its line in --help, and what adds its options.
struct CommandEntry {
  const char* name;
  const char* description;
  Finisher (*add)(CLI::App* command);
};
constexpr std::array kCommands{
    CommandEntry{"send", "Send N feeds to a receiver (the default command)", add_send},
    CommandEntry{"recv", "Receive N feeds on one listen address", add_recv},
    CommandEntry{"demo", "Senders and receivers on loopback in one process", add_demo},
    CommandEntry{"check",
                 "Pre-flight validation of a destination: reachability, RTT, MTU, buffers, "
                 "capacity",
                 add_check},
    CommandEntry{"bench",
                 "Memory-to-memory throughput, every byte verified (--dest sends, --listen "
                 "receives)",
                 add_bench},
    CommandEntry{"presets", "List presets, or show one and where each value came from",
                 add_presets},
    CommandEntry{"monitor", "One panel over several hosts' --metrics-listen endpoints",
                 add_monitor},
};

}  // namespace

Command parse_command_line(int argc, const char* const* argv) {
  // `hdstream --streams 5 --dest portland` means `hdstream send --streams 5 --dest portland`.
  std::vector<const char*> args(argv, argv + argc);
  if (args.size() > 1 && args[1][0] == '-' && std::strcmp(args[1], "-h") != 0 &&
      std::strcmp(args[1], "--help") != 0 && std::strcmp(args[1], "--version") != 0) {
    args.insert(args.begin() + 1, "send");
  }
  if (args.size() > 1 && args[1][0] != '-' &&
      std::ranges::none_of(kCommands, [&](const CommandEntry& known) {
        return std::strcmp(known.name, args[1]) == 0;
      })) {
    std::vector<std::string_view> names;
    for (const auto& known : kCommands) names.push_back(known.name);
    fmt::print(stderr, "hdstream: error: unknown command '{}' (expected {})\n", args[1],
               fmt::join(names, ", "));
    return ExitNow{2};
  }

  CLI::App app("hdstream: live studio video feeds over long, fast networks", "hdstream");
  app.require_subcommand(1);
  app.set_version_flag("--version", "hdstream " + hdstream_version());
  std::vector<std::pair<CLI::App*, Finisher>> commands;
  for (const auto& entry : kCommands) {
    CLI::App* command = app.add_subcommand(entry.name, entry.description);
    commands.emplace_back(command, entry.add(command));
  }

  try {
    app.parse(static_cast<int>(args.size()), args.data());
    for (auto& [command, finish] : commands) {
      if (command->parsed()) return finish();
    }
    throw CLI::CallForHelp();
  } catch (const CLI::ParseError& error) {
    if (error.get_exit_code() == 0) return ExitNow{app.exit(error)};  // --help
    fmt::print(stderr, "hdstream: error: {} (see hdstream --help)\n", error.what());
    return ExitNow{2};
  } catch (const UnitError& error) {
    fmt::print(stderr, "hdstream: error: {} (see hdstream --help)\n", error.what());
    return ExitNow{2};
  }
}

}  // namespace hdstream
