#include "app/cli_options.hpp"

#include <fmt/format.h>

#include "app/cli_validators.hpp"
#include "app/session_key.hpp"
#include "app/usage_error.hpp"
#include "common/units.hpp"
#include "presets/presets.hpp"
#include "protocol/feed_limits.hpp"
#include "transport/factory.hpp"
#include "transport/frame_memory.hpp"
#include "transport/key_file.hpp"
#include "transport/srt/srt_fec.hpp"

namespace hdstream {

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

}  // namespace hdstream
