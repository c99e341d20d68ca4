#include "app/cli.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "common/units.hpp"

namespace hdstream {
namespace {

// A CLI11 validator from one of our unit parsers: the error text is the parser's message.
template <typename Parse>
CLI::Validator unit_validator(std::string name, Parse parse) {
  return CLI::Validator(
      [parse](std::string& text) -> std::string {
        try {
          parse(text);
          return {};
        } catch (const UnitError& error) {
          return error.what();
        }
      },
      std::move(name));
}

const CLI::Validator kRate = unit_validator("RATE", [](const std::string& t) { return parse_rate_bps(t); });
const CLI::Validator kDuration = unit_validator("DURATION", [](const std::string& t) { return parse_duration(t); });
const CLI::Validator kBytes = unit_validator("SIZE", [](const std::string& t) { return parse_bytes(t); });

struct CommonText {
  std::string stats = "text";
  std::string interval = "1s";
};

void add_common(CLI::App& command, CommonOptions& options, CommonText& text) {
  command.add_option("--stats", text.stats, "Live statistics format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  command.add_option("--stats-file", options.stats_file, "Where statistics go: a path, or - for stdout")
      ->capture_default_str();
  command.add_option("--interval", text.interval, "Statistics interval, e.g. 1s or 250ms")
      ->check(kDuration)
      ->capture_default_str();
  command.add_option("--log-level", options.log_level, "Log level on stderr")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}))
      ->capture_default_str();
}

void finish_common(CommonOptions& options, const CommonText& text) {
  options.stats_format = *stats_format_from_string(text.stats);
  options.interval = parse_duration(text.interval);
  if (options.interval < std::chrono::milliseconds(10)) {
    throw CLI::ValidationError("--interval", "must be at least 10ms");
  }
}

CLI::Option* add_streams(CLI::App& command, std::size_t& streams) {
  return command.add_option("--streams", streams, "Number of concurrent feeds")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
}

CLI::Option* add_transport(CLI::App& command, std::string& transport) {
  return command.add_option("--transport", transport, "Transport")
      ->check(CLI::IsMember({"tcp", "mtcp", "srt"}))
      ->capture_default_str();
}

}  // namespace

Command parse_command_line(int argc, const char* const* argv) {
  // `hdstream --streams 5 --dest portland` means `hdstream send --streams 5 --dest portland`.
  std::vector<const char*> args(argv, argv + argc);
  if (args.size() > 1 && args[1][0] == '-' && std::strcmp(args[1], "-h") != 0 &&
      std::strcmp(args[1], "--help") != 0) {
    args.insert(args.begin() + 1, "send");
  }

  static constexpr std::array kCommands{"send", "recv", "demo"};
  if (args.size() > 1 && args[1][0] != '-' &&
      std::find_if(kCommands.begin(), kCommands.end(),
                   [&](const char* known) { return std::strcmp(known, args[1]) == 0; }) ==
          kCommands.end()) {
    fmt::print(stderr, "hdstream: error: unknown command '{}' (expected send, recv or demo)\n",
               args[1]);
    return ExitNow{2};
  }

  CLI::App app("hdstream: live studio video feeds over long, fast networks", "hdstream");
  app.require_subcommand(1);
  app.fallthrough(false);

  SendOptions send;
  CommonText send_text;
  std::string send_rate = "270M", send_duration = "0", send_rtt = "1ms", send_chunk = "64K",
              send_latency = "120ms",
              send_transport = "tcp", send_patience = "10s";
  auto* send_cmd = app.add_subcommand("send", "Send N feeds to a receiver (the default command)");
  send_cmd->add_option("--dest", send.dest, "Destination: HOST:PORT or a preset name")->required();
  add_streams(*send_cmd, send.streams);
  send_cmd->add_option("--format", send.format, "Feed format")
      ->check(CLI::IsMember({"synthetic"}))
      ->capture_default_str();
  add_transport(*send_cmd, send_transport);
  send_cmd->add_option("--rate", send_rate, "Bit rate per feed, e.g. 270M, 1.5G")
      ->check(kRate)
      ->capture_default_str();
  send_cmd->add_option("--duration", send_duration, "How long to send, e.g. 10s; 0 runs until interrupted")
      ->check(kDuration)
      ->capture_default_str();
  send_cmd->add_option("--cc", send.congestion_control, "TCP congestion control")
      ->check(CLI::IsMember({"bbr", "cubic", "reno"}))
      ->capture_default_str();
  send_cmd->add_option("--rtt", send_rtt, "Expected round-trip time; sizes socket buffers (rate x RTT)")
      ->check(kDuration)
      ->capture_default_str();
  send_cmd->add_option("--latency", send_latency,
                       "Latency budget: frames later than this are dropped, not queued")
      ->check(kDuration)
      ->capture_default_str();
  send_cmd->add_option("--chunk-size", send_chunk, "Chunk payload size, e.g. 64K")
      ->check(kBytes)
      ->capture_default_str();
  send_cmd->add_option("--pacing-factor", send.pacing_factor,
                       "Cap the socket's pacing rate at this multiple of --rate (0: off)")
      ->check(CLI::Range(0.0, 100.0))
      ->capture_default_str();
  send_cmd->add_option("--connect-timeout", send_patience, "Keep retrying a refused connection this long")
      ->check(kDuration)
      ->capture_default_str();
  send_cmd->add_option("--conns", send.connections, "mtcp: TCP sub-connections per feed (default 4)")
      ->check(CLI::Range(1, 16));
  send_cmd->add_option("--key-file", send.key_file, "srt: file holding the passphrase (10..79 characters)");
  send_cmd->add_option("--key-length", send.key_length_bytes, "srt: AES key length in bytes")
      ->check(CLI::IsMember({16, 24, 32}))
      ->capture_default_str();
  send_cmd->add_option("--mux", send.mux, "srt: wire framing; ts = MPEG-TS for ffmpeg/GStreamer")
      ->check(CLI::IsMember({"none", "ts"}))
      ->capture_default_str();
  add_common(*send_cmd, send.common, send_text);

  RecvOptions recv;
  CommonText recv_text;
  std::string recv_duration = "0", recv_transport = "tcp";
  auto* recv_cmd = app.add_subcommand("recv", "Receive N feeds on one listen address");
  recv_cmd->add_option("--listen", recv.listen, "Listen address: [HOST]:PORT")->required();
  add_streams(*recv_cmd, recv.streams);
  add_transport(*recv_cmd, recv_transport);
  recv_cmd->add_option("--output", recv.output, "Where received frames go")
      ->check(CLI::IsMember({"null"}))
      ->capture_default_str();
  recv_cmd->add_option("--duration", recv_duration,
                       "Stop after this long; 0 waits until every stream has ended")
      ->check(kDuration)
      ->capture_default_str();
  std::string recv_latency = "120ms";
  recv_cmd->add_option("--key-file", recv.key_file, "srt: file holding the passphrase");
  recv_cmd->add_option("--latency", recv_latency, "srt: receive latency")
      ->check(kDuration)
      ->capture_default_str();
  recv_cmd->add_option("--mux", recv.mux, "srt: wire framing; ts = MPEG-TS from ffmpeg/GStreamer")
      ->check(CLI::IsMember({"none", "ts"}))
      ->capture_default_str();
  add_common(*recv_cmd, recv.common, recv_text);

  DemoOptions demo;
  CommonText demo_text;
  std::string demo_rate = "270M", demo_duration = "20s";
  auto* demo_cmd = app.add_subcommand("demo", "Senders and receivers on loopback in one process");
  add_streams(*demo_cmd, demo.streams);
  demo_cmd->add_option("--rate", demo_rate, "Bit rate per feed")->check(kRate)->capture_default_str();
  demo_cmd->add_option("--duration", demo_duration, "How long to run; 0 runs until interrupted")
      ->check(kDuration)
      ->capture_default_str();
  add_common(*demo_cmd, demo.common, demo_text);

  auto convert = [&]() -> Command {
    app.parse(static_cast<int>(args.size()), args.data());
    if (send_cmd->parsed()) {
      finish_common(send.common, send_text);
      send.transport = *transport_from_string(send_transport);
      send.rate_bps = parse_rate_bps(send_rate);
      send.duration = parse_duration(send_duration);
      send.expected_rtt = parse_duration(send_rtt);
      send.latency = parse_duration(send_latency);
      send.latency_given = send_cmd->get_option("--latency")->count() > 0;
      if (send.connections > 0 && send.transport != TransportKind::mtcp) {
        throw CLI::ValidationError("--conns", "only applies to --transport mtcp");
      }
      if (send.mux == "ts" && send.transport != TransportKind::srt) {
        throw CLI::ValidationError("--mux", "ts needs --transport srt");
      }
      send.connect_patience = parse_duration(send_patience);
      const auto chunk = parse_bytes(send_chunk);
      if (chunk < 1024 || chunk > (4u << 20)) {
        throw CLI::ValidationError("--chunk-size", "must be between 1K and 4M");
      }
      send.chunk_bytes = static_cast<std::uint32_t>(chunk);
      return send;
    }
    if (recv_cmd->parsed()) {
      finish_common(recv.common, recv_text);
      recv.transport = *transport_from_string(recv_transport);
      recv.duration = parse_duration(recv_duration);
      recv.latency = parse_duration(recv_latency);
      if (recv.mux == "ts" && recv.transport != TransportKind::srt) {
        throw CLI::ValidationError("--mux", "ts needs --transport srt");
      }
      return recv;
    }
    finish_common(demo.common, demo_text);
    demo.rate_bps = parse_rate_bps(demo_rate);
    demo.duration = parse_duration(demo_duration);
    return demo;
  };

  try {
    return convert();
  } catch (const CLI::ParseError& error) {
    if (error.get_exit_code() == 0) return ExitNow{app.exit(error)};  // --help
    fmt::print(stderr, "hdstream: error: {} (see hdstream --help)\n", error.what());
    return ExitNow{2};
  }
}

}  // namespace hdstream
