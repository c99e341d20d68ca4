// Parsed command-line options of every subcommand, with units already converted.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/clock.hpp"
#include "presets/presets.hpp"
#include "protocol/auth.hpp"
#include "protocol/handshake.hpp"
#include "stats/report.hpp"
#include "telemetry/web_config.hpp"
#include "transport/factory.hpp"

namespace hdstream {

using namespace std::chrono_literals;

struct CommonOptions {
  std::optional<std::filesystem::path> config_file;  // --config: highest-precedence preset file
  // Long names of the options given on the command line or in the environment: these win
  // over presets.
  std::set<std::string> explicit_options;
  StatsFormat stats_format = StatsFormat::text;
  std::string stats_file = "-";  // "-" is stdout
  std::chrono::nanoseconds interval = 1s;
  std::string log_level = "info";
  std::string key_file;  // --key-file as given; what it is: decide_session_key (app/session_key)
  std::optional<PresharedKey> key;  // tcp, mtcp: sessions authenticate with it (docs/SECURITY.md)
  std::string srt_passphrase;       // srt: the key file's text, the AES passphrase
  std::optional<bool> gui;          // --gui / --no-gui; unset: the command's default
  std::string metrics_listen;       // --metrics-listen ADDR; empty: no telemetry server
  std::vector<std::string> metrics_names;  // --metrics-name: Host names the server answers to
  // --control-key-file: POST /program needs it as a bearer token; unset: HTTP control is off.
  std::optional<PresharedKey> control_key;
  // --web-config: TLS and basic auth for the telemetry server; unset: plain HTTP, no passwords.
  std::optional<WebConfig> web_config;
};

struct SendOptions {
  CommonOptions common;
  std::string dest;     // preset name or HOST:PORT
  std::string dest_b;   // a second path (two-path protection): preset name or HOST:PORT
  std::string profile;  // a profile preset naming destination, format, streams, rate
  std::size_t streams = 1;
  std::string format = "synthetic";
  // Per feed: empty -> the format's default; one -> all feeds ({stream} substituted); N -> each.
  std::vector<std::string> sources;
  // Per feed, like sources: empty -> each source's own sound (a file: clip's track); "none";
  // or a GStreamer description, with audio_channels channels.
  std::vector<std::string> audio_sources;
  std::uint8_t audio_channels = 2;
  TransportKind transport = TransportKind::tcp;
  std::uint64_t rate_bps = 270'000'000;
  std::chrono::nanoseconds duration = 0s;   // 0: until interrupted
  std::string congestion_control = "auto";  // auto: bbr from 10 ms RTT up, cubic below
  std::chrono::nanoseconds expected_rtt = 1ms;
  // How far a frame may fall behind real time before the sender drops it (queue depth).
  std::chrono::nanoseconds latency = 120ms;
  std::uint32_t chunk_bytes = 64 * 1024;
  double pacing_factor = 0;  // SO_MAX_PACING_RATE = factor x rate; 0 leaves pacing to the cc
  // Paced feeds: spread evenly over the frame period (feed i starts i/N of a period later), or
  // aligned on the same frame boundary like genlocked sources (--phase).
  bool align_frames = false;
  std::chrono::nanoseconds connect_patience = 10s;
  // After a session broke: how long to keep reconnecting (kForever: for as long as the run).
  std::chrono::nanoseconds reconnect_patience = kForever;
  std::optional<std::filesystem::path> report;  // --report: a link report written at the end
  std::size_t connections = 0;                  // mtcp sub-connections (--conns); 0: the default, 4
  bool latency_given = false;  // --latency set explicitly (srt otherwise: max(120ms, 4 x RTT))
  int key_length_bytes = 16;   // srt AES key length (--key-length)
  std::string srt_fec;         // srt FEC filter as given (--srt-fec); empty: none
  Mux mux = Mux::none;         // ts: MPEG-TS (MPEG-2 4:2:2) over srt (--mux)
  TsAudio ts_audio = TsAudio::s302m;  // --mux ts: the sound as 302M PCM or AAC (--ts-audio)
};

struct RecvOptions {
  CommonOptions common;
  std::string listen;
  std::size_t streams = 1;
  TransportKind transport = TransportKind::tcp;
  std::vector<std::string> outputs{"null"};     // each: null | display | file:PATTERN
  std::string audio_output = "auto";            // feeds with sound: auto | null | ALSA device
  std::chrono::nanoseconds silence_alarm = 5s;  // every channel below -60 dBFS this long
  bool overwrite = false;  // recordings replace existing files (else: the next numbered name)
  bool fullscreen = false;
  std::string layout;  // multiview tiles, "COLUMNSxROWS"; empty: from the feed count
  std::size_t decode_queue_frames = 8;
  std::chrono::microseconds debug_decode_delay{0};  // test hook: a deliberately slow decoder
  std::chrono::nanoseconds duration = 0s;    // 0: until every stream has ended, or interrupted
  std::chrono::nanoseconds latency = 120ms;  // srt receive latency (--latency)
  std::string srt_fec;                       // srt FEC filter as given (--srt-fec); empty: none
  Mux mux = Mux::none;                       // ts: MPEG-TS over srt (--mux)
  std::uint64_t max_memory_bytes = 0;        // --max-memory; 0: the receiver's default
  // --skew: how long a protected feed's frame one leg lacks waits for the other; unset: sized
  // from the legs' RTTs and jitter.
  std::optional<std::chrono::nanoseconds> skew;
};

// `hdstream bench`: the sending side with --dest, the receiving side with --listen.
struct BenchOptions {
  CommonOptions common;
  // The feeds, as for `send` (both sides: streams and transport): dest, rate (0, --rate max:
  // unpaced), duration (10 s), cc (bbr), rtt, chunk size.
  SendOptions send;
  std::string listen;
  std::size_t frame_bytes = 1 << 20;            // unpaced frames
  double distance_km = 0;                       // > 0: report the land-speed-record metric
  std::optional<std::filesystem::path> report;  // --report: a link report of the run
  std::uint64_t max_memory_bytes = 0;           // --max-memory (--listen); 0: the default
};

struct MonitorOptions {
  CommonOptions common;
  std::vector<std::string> hosts;               // HOST:PORT of each --metrics-listen to watch
  std::optional<HttpClientConfig> http_config;  // --http-config: HTTPS and credentials
  std::chrono::nanoseconds poll = 500ms;
  std::chrono::nanoseconds duration = 0s;  // 0: until interrupted or the window closes
};

struct DemoOptions {
  CommonOptions common;
  std::size_t streams = 5;
  bool streams_given = false;  // --streams: run that many; else as many of 5 as fit (demo_size)
  std::uint64_t rate_bps = 270'000'000;
  std::chrono::nanoseconds duration = 20s;
  std::string format = "dnxhd220";
  std::vector<std::string> sources;
  std::vector<std::string> audio_sources;
  std::uint8_t audio_channels = 2;
  std::vector<std::string> outputs{"auto"};  // auto: display when there is one, else null
  std::string audio_output = "auto";
  std::chrono::nanoseconds silence_alarm = 5s;
  bool fullscreen = false;
  std::string layout;  // multiview tiles, "COLUMNSxROWS"; empty: from the feed count
};

}  // namespace hdstream

namespace hdstream {

// `check --acceptance`: a ramp of steps up to the planned rate, then a soak (ITU-T Y.1564's
// service configuration and performance tests), judged against the service's criteria.
struct AcceptanceOptions {
  bool enabled = false;
  std::vector<double> steps_percent{25, 50, 75, 100};
  std::chrono::nanoseconds step_duration = 30s;
  std::chrono::nanoseconds soak = 15min;
  bool one_way_delay = false;  // the ends' clocks agree (PTP, chrony): frame delay one way
  SlaPreset sla;               // flags; over the destination's [destinations.NAME.sla]
  std::string engineer, link_id, sign_off;
};

struct CheckOptions {
  CommonOptions common;
  SendOptions send;  // destination, streams, rate, format, cc, rtt as for `send`
  std::chrono::nanoseconds probe_duration = 3s;
  std::optional<std::filesystem::path> report;
  AcceptanceOptions acceptance;
};

struct PresetsOptions {
  CommonOptions common;
  std::string action = "list";  // list | show
  std::string name;             // for show
};

}  // namespace hdstream
