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
#include "app/cli_validators.hpp"
#include "app/session_key.hpp"
#include "app/usage_error.hpp"
#include "common/provenance.hpp"
#include "common/units.hpp"
#include "mux/wire.hpp"
#include "presets/presets.hpp"
#include "protocol/feed_limits.hpp"
#include "transport/frame_memory.hpp"
#include "transport/key_file.hpp"
#include "transport/srt/srt_fec.hpp"

namespace hdstream {
namespace {

// --srt-fec: the error text names what to fix (transport/srt/srt_fec.hpp).
const CLI::Validator kSrtFec(
    [](std::string& text) -> std::string {
      try {
        parse_srt_fec(text);
        return {};
      } catch (const SrtFecError& error) {
        return error.what();
      }
    },
    "COLS,ROWS[,LAYOUT]");

// Options are parsed as text and converted once parsing succeeded; each subcommand registers
// the conversion to run if it was the one chosen.
using Finisher = std::function<Command()>;

struct CommonText {
  std::string stats = "text";
  std::string interval = "1s";
  std::string config;
  std::string key_file;
  std::string control_key_file;
  std::string web_config;
};

// Where a receiving command's frames go (--output, repeatable) and how screens show them.
void add_outputs(CLI::App& command, std::vector<std::string>& outputs, bool& fullscreen,
                 std::string& layout, std::string& audio_output,
                 std::chrono::nanoseconds& silence_alarm, const std::string& output_help) {
  command.add_option("--output", outputs, output_help)
      ->allow_extra_args(false)
      ->capture_default_str();
  command
      .add_option("--audio-output", audio_output,
                  "Where feeds with sound play it: auto (the default sound device, or nowhere "
                  "without one), null (in real time, heard nowhere) or an ALSA device (hw:1,0)")
      ->check([](const std::string& value) {
        return value.empty() ? std::string("needs auto, null or an ALSA device") : std::string();
      })
      ->capture_default_str();
  command
      .add_option_function<std::string>(
          "--silence-alarm",
          [&silence_alarm](const std::string& text) { silence_alarm = parse_duration(text); },
          "Raise a feed's silence alarm when all its channels stay below -60 dBFS this long "
          "(default 5s)")
      ->check(kDuration);
  command.add_flag("--fullscreen", fullscreen, "With --output display: whole screen");
  command.add_option("--layout", layout,
                     "With --output multiview: tiles as COLUMNSxROWS (2x2, 3x2, 4x4); default "
                     "from the feed count");
}

void add_common(CLI::App& command, CommonOptions& options, CommonText& text) {
  command.add_option("--stats", text.stats, "Live statistics format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  command
      .add_option("--stats-file", options.stats_file,
                  "Where statistics go: a path, or - for stdout")
      ->capture_default_str();
  add_checked(command, "--interval", text.interval, "Statistics interval, e.g. 1s or 250ms",
              kDuration);
  command.add_flag_callback(
      "--gui", [&options] { options.gui = true; }, "Show the live panel (needs a display)");
  command.add_flag_callback(
      "--no-gui", [&options] { options.gui = false; },
      "Console statistics only, even when a display exists");
  command.add_option("--metrics-listen", options.metrics_listen,
                     "Serve /metrics and /stats.json over HTTP on [HOST]:PORT (host 127.0.0.1 "
                     "when only :PORT is given)");
  command.add_option("--metrics-name", options.metrics_names,
                     "A name clients reach --metrics-listen by (their Host header), besides its "
                     "address, localhost and this machine's name; repeatable");
  command
      .add_option("--control-key-file", text.control_key_file,
                  "Key file (mode 600, 64 hex digits) that POST /program needs as "
                  "'Authorization: Bearer <its text>'; without it HTTP control is off")
      ->envname("HDSTREAM_CONTROL_KEY_FILE");
  command
      .add_option("--web-config", text.web_config,
                  "Prometheus web config file (exporter-toolkit format): TLS and basic-auth "
                  "users for --metrics-listen")
      ->envname("HDSTREAM_WEB_CONFIG");
  command.add_option("--log-level", options.log_level, "Log level on stderr")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}))
      ->capture_default_str();
  command
      .add_option("--config", text.config,
                  "Preset file with the highest precedence (over user and system presets)")
      ->envname("HDSTREAM_CONFIG");
  command
      .add_option("--key-file", text.key_file,
                  "Pre-shared key file (mode 600): tcp/mtcp sessions authenticate with it "
                  "(64 hex digits); srt uses its text as the AES passphrase (10..79 characters)")
      ->envname("HDSTREAM_KEY_FILE");
}

// The key file, in a command whose transport the command line alone decides (recv, demo); send
// and check decide it in plan_send, after the presets.
void decide_key(CommonOptions& options, TransportKind transport) {
  try {
    decide_session_key(options, transport, options.key_file, "--key-file");
  } catch (const UsageError& error) {
    throw CLI::ValidationError(error.what());
  }
}

void finish_common(const CLI::App& command, CommonOptions& options, const CommonText& text) {
  options.stats_format = *stats_format_from_string(text.stats);
  options.interval = parse_duration(text.interval);
  if (options.interval < std::chrono::milliseconds(10)) {
    throw CLI::ValidationError("--interval", "must be at least 10ms");
  }
  if (!text.config.empty()) options.config_file = text.config;
  options.key_file = text.key_file;
  if (!text.control_key_file.empty()) {
    try {
      options.control_key = load_key_file(text.control_key_file);
    } catch (const KeyFileError& error) {
      throw CLI::ValidationError("--control-key-file", error.what());
    }
  }
  if (!text.web_config.empty()) {
    try {
      options.web_config = load_web_config(text.web_config);
    } catch (const WebConfigError& error) {
      throw CLI::ValidationError("--web-config", error.what());
    }
  }
  for (const CLI::Option* option : command.get_options()) {
    if (option->count() > 0) options.explicit_options.insert(option->get_single_name());
  }
}

CLI::Option* add_streams(CLI::App& command, std::size_t& streams) {
  return command.add_option("--streams", streams, "Number of concurrent feeds")
      ->check(CLI::Range(1, 256))
      ->envname("HDSTREAM_STREAMS")
      ->capture_default_str();
}

// --max-memory on the receiving commands: "auto" (kDefaultMemoryPerStreamBytes a stream) or a
// size of at least 1M.
CLI::Option* add_max_memory(CLI::App& command, std::string& text) {
  return command
      .add_option("--max-memory", text,
                  fmt::format("Memory all feeds together may hold for frames in flight, e.g. 2G; "
                              "each stream gets an equal share and a feed that could need more "
                              "is refused (auto: {} MiB per --streams)",
                              kDefaultMemoryPerStreamBytes >> 20))
      ->check(CLI::IsMember({"auto"}) | kBytes)
      ->envname("HDSTREAM_MAX_MEMORY")
      ->capture_default_str();
}

// 0 for "auto": the receiver's default (transport/frame_memory.hpp).
std::uint64_t parse_max_memory(const std::string& text) {
  if (text == "auto") return 0;
  const std::uint64_t bytes = parse_bytes(text);
  if (bytes < (1u << 20)) throw CLI::ValidationError("--max-memory", "must be at least 1M");
  return bytes;
}

void add_sources(CLI::App& command, std::vector<std::string>& sources) {
  command
      .add_option("--source", sources,
                  "Feed source: synthetic, file:PATH (sent as is, looped), bars (cached test "
                  "clip), or a GStreamer description (videotestsrc pattern=ball). Once for all "
                  "feeds ({stream} = feed number) or once per feed")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

void add_audio_sources(CLI::App& command, std::vector<std::string>& sources,
                       std::uint8_t& channels) {
  command
      .add_option("--audio-source", sources,
                  "Feed sound: none, or a GStreamer description (audiotestsrc wave=sine, "
                  "alsasrc, pulsesrc); default: a file: clip's own PCM track. Once for all "
                  "feeds ({stream} = feed number) or once per feed")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  command
      .add_option("--audio-channels", channels,
                  "Channels of an --audio-source description's sound (24-bit, 48 kHz)")
      ->check(CLI::Range(1, int{kMaxAudioChannels}))
      ->capture_default_str();
}

CLI::Option* add_transport(CLI::App& command, std::string& transport) {
  return command.add_option("--transport", transport, "Transport")
      ->check(CLI::IsMember({"tcp", "mtcp", "srt"}))
      ->envname("HDSTREAM_TRANSPORT")
      ->capture_default_str();
}

// --mux none|ts, as text until finish_mux() checks it against recv's transport (send's
// transport may come from a preset: plan_feeds checks the wire).
CLI::Option* add_mux(CLI::App& command, std::string& mux, const std::string& help) {
  return command.add_option("--mux", mux, help)
      ->check(CLI::IsMember({"none", "ts"}))
      ->capture_default_str();
}

Mux finish_mux(const std::string& text, TransportKind transport) {
  const Mux mux = *mux_from_string(text);
  if (auto problem = wire_problem(Wire{transport, mux})) {
    throw CLI::ValidationError(*problem);
  }
  return mux;
}

// --chunk-size: a chunk's payload, 1K to 4M.
std::uint32_t chunk_bytes(const std::string& text) {
  const auto bytes = parse_bytes(text);
  if (bytes < 1024 || bytes > (4u << 20)) {
    throw CLI::ValidationError("--chunk-size", "must be between 1K and 4M");
  }
  return static_cast<std::uint32_t>(bytes);
}

// The options as typed, until finish_send_options() reads them. They start as the typed
// defaults (app/options.hpp) spelled as a user types them: a default is written once, there, and
// --help shows it.
struct SendText {
  explicit SendText(const SendOptions& defaults = SendOptions{})
      : rate(spell_rate(defaults.rate_bps)),
        duration(spell_duration(defaults.duration)),
        rtt(spell_duration(defaults.expected_rtt)),
        chunk(spell_bytes(defaults.chunk_bytes)),
        latency(spell_duration(defaults.latency)),
        transport(to_string(defaults.transport)),
        patience(spell_duration(defaults.connect_patience)),
        reconnect(defaults.reconnect_patience == kForever
                      ? "forever"
                      : spell_duration(defaults.reconnect_patience)),
        phase(defaults.align_frames ? "aligned" : "spread"),
        mux(to_string(defaults.mux)),
        ts_audio(to_string(defaults.ts_audio)) {}
  std::string rate, duration, rtt, chunk, latency, transport, patience, reconnect, phase, report,
      mux, ts_audio;
};

// The options `send` and `check` share: what to send, where, and how.
void add_send_options(CLI::App& command, SendOptions& send, SendText& text) {
  command.add_option("--dest", send.dest, "Destination: HOST:PORT or a destination preset")
      ->envname("HDSTREAM_DEST");
  command.add_option("--dest-b", send.dest_b,
                     "Also send every feed in full over this second path (HOST:PORT or a "
                     "destination preset): the receiver merges the two, hitlessly");
  command.add_option("--profile", send.profile,
                     "Profile preset (destination, format, feeds, rate)");
  add_streams(command, send.streams);
  command.add_option("--format", send.format, "Feed format preset (hdstream presets list)")
      ->envname("HDSTREAM_FORMAT")
      ->capture_default_str();
  add_sources(command, send.sources);
  add_audio_sources(command, send.audio_sources, send.audio_channels);
  add_transport(command, text.transport);
  command.add_option("--rate", text.rate, "Bit rate per feed, e.g. 270M, 1.5G")
      ->check(kRate)
      ->envname("HDSTREAM_RATE")
      ->capture_default_str();
  command
      .add_option("--cc", send.congestion_control,
                  "TCP congestion control; auto = bbr when --rtt is 10ms or more, else cubic")
      ->check(CLI::IsMember({"auto", "bbr", "cubic", "reno"}))
      ->envname("HDSTREAM_CC")
      ->capture_default_str();
  command
      .add_option("--rtt", text.rtt, "Expected round-trip time; sizes socket buffers (rate x RTT)")
      ->check(kDuration)
      ->envname("HDSTREAM_RTT")
      ->capture_default_str();
  command
      .add_option("--latency", text.latency,
                  "Latency budget: frames later than this are dropped, not queued (default "
                  "120ms; mtcp: at least 10 x --rtt, srt: at least 4 x --rtt)")
      ->check(kDuration)
      ->envname("HDSTREAM_LATENCY")
      ->capture_default_str();
  add_checked(command, "--chunk-size", text.chunk, "Chunk payload size, e.g. 64K", kBytes);
  command
      .add_option("--pacing-factor", send.pacing_factor,
                  "Cap the socket's pacing rate at this multiple of --rate (0: off)")
      ->check(CLI::Range(0.0, 100.0))
      ->capture_default_str();
  command
      .add_option("--phase", text.phase,
                  "Frame timing across feeds: spread (feed i starts i/N of a frame period later: "
                  "no N-frame bursts on the link or at the decoders) or aligned (all on one frame "
                  "boundary, like genlocked sources)")
      ->check(CLI::IsMember({"spread", "aligned"}))
      ->capture_default_str();
  add_checked(command, "--connect-timeout", text.patience,
              "Keep retrying a refused connection this long", kDuration);
  command
      .add_option("--reconnect", text.reconnect,
                  "After a feed's session breaks (path cut, receiver restarted), keep "
                  "reconnecting this long: a duration, 'forever' (live feeds: for as long as "
                  "the show runs) or 'off'")
      ->check(CLI::IsMember({"forever", "off"}) | kDuration)
      ->capture_default_str();
  command.add_option("--report", text.report,
                     "Write a link report: Markdown with a PNG plot beside it, or one .html file");
  command
      .add_option("--conns", send.connections,
                  "mtcp: TCP sub-connections per feed (default 4); srt: SRT connections one feed "
                  "is striped over (default 1; K >= 2 also uses UDP ports port + N x k of the "
                  "receiver serving N streams, k < K)")
      ->check(CLI::Range(1, 16));
  command.add_option("--key-length", send.key_length_bytes, "srt: AES key length in bytes")
      ->check(CLI::IsMember({16, 24, 32}))
      ->capture_default_str();
  command
      .add_option("--srt-fec", send.srt_fec,
                  "srt: forward error correction (libsrt's FEC filter), COLS,ROWS[,LAYOUT] "
                  "(e.g. 10,5,staircase) or libsrt's fec,cols:10,rows:5,layout:staircase,"
                  "arq:onreq; 1/COLS + 1/ROWS more packets, and the latency must cover "
                  "COLS x ROWS of them")
      ->check(kSrtFec);
}

void finish_send_options(SendOptions& send, const SendText& text) {
  send.transport = *transport_from_string(text.transport);
  send.rate_bps = parse_rate_bps(text.rate);
  send.duration = parse_duration(text.duration);
  send.expected_rtt = parse_duration(text.rtt);
  send.latency = parse_duration(text.latency);
  send.connect_patience = parse_duration(text.patience);
  send.reconnect_patience = text.reconnect == "forever" ? kForever
                            : text.reconnect == "off"   ? std::chrono::nanoseconds(0)
                                                        : parse_duration(text.reconnect);
  send.align_frames = text.phase == "aligned";
  send.chunk_bytes = chunk_bytes(text.chunk);
  if (!text.report.empty()) send.report = text.report;
  send.latency_given = send.common.explicit_options.count("latency") > 0;
  // What depends on the transport (the key file, --conns, --mux) is decided by plan_send,
  // once a destination preset may have named the transport.
}

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
