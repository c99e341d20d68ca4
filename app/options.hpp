// Parsed command-line options of every subcommand, with units already converted.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "protocol/handshake.hpp"
#include "stats/report.hpp"

namespace hdstream {

using namespace std::chrono_literals;

struct CommonOptions {
  StatsFormat stats_format = StatsFormat::text;
  std::string stats_file = "-";  // "-" is stdout
  std::chrono::nanoseconds interval = 1s;
  std::string log_level = "info";
};

struct SendOptions {
  CommonOptions common;
  std::string dest;  // preset name or HOST:PORT
  std::size_t streams = 1;
  std::string format = "synthetic";
  TransportKind transport = TransportKind::tcp;
  std::uint64_t rate_bps = 270'000'000;
  std::chrono::nanoseconds duration = 0s;  // 0: until interrupted
  std::string congestion_control = "bbr";
  std::chrono::nanoseconds expected_rtt = 1ms;
  // How far a frame may fall behind real time before the sender drops it (queue depth).
  std::chrono::nanoseconds latency = 120ms;
  std::uint32_t chunk_bytes = 64 * 1024;
  double pacing_factor = 0;  // SO_MAX_PACING_RATE = factor x rate; 0 leaves pacing to the cc
  std::chrono::nanoseconds connect_patience = 10s;
  std::size_t connections = 0;          // mtcp sub-connections (--conns); 0: the default, 4
  bool latency_given = false;           // --latency set explicitly (srt otherwise: max(120ms, 4 x RTT))
  std::string key_file;                 // srt passphrase file (--key-file)
  int key_length_bytes = 16;            // srt AES key length (--key-length)
  std::string mux = "none";             // "ts": MPEG-TS over srt (--mux)
};

struct RecvOptions {
  CommonOptions common;
  std::string listen;
  std::size_t streams = 1;
  TransportKind transport = TransportKind::tcp;
  std::string output = "null";
  std::chrono::nanoseconds duration = 0s;  // 0: until every stream has ended, or interrupted
  std::string key_file;                    // srt passphrase file (--key-file)
  std::chrono::nanoseconds latency = 120ms;  // srt receive latency (--latency)
  std::string mux = "none";                // "ts": MPEG-TS over srt (--mux)
};

struct DemoOptions {
  CommonOptions common;
  std::size_t streams = 5;
  std::uint64_t rate_bps = 270'000'000;
  std::chrono::nanoseconds duration = 20s;
};

}  // namespace hdstream
