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
  std::uint32_t chunk_bytes = 64 * 1024;
  double pacing_factor = 0;  // SO_MAX_PACING_RATE = factor x rate; 0 leaves pacing to the cc
  std::chrono::nanoseconds connect_patience = 10s;
  // Memory-to-memory (bench): frames of frame_bytes as fast as the transport takes them.
  bool unpaced = false;
  std::size_t frame_bytes = 0;
};

struct RecvOptions {
  CommonOptions common;
  std::string listen;
  std::size_t streams = 1;
  TransportKind transport = TransportKind::tcp;
  std::string output = "null";
  std::chrono::nanoseconds duration = 0s;  // 0: until every stream has ended, or interrupted
};

// `hdstream bench`: the sending side with --dest, the receiving side with --listen.
struct BenchOptions {
  CommonOptions common;
  std::string dest;
  std::string listen;
  std::size_t streams = 1;
  TransportKind transport = TransportKind::tcp;
  std::uint64_t rate_bps = 0;  // 0 (--rate max): unpaced
  std::chrono::nanoseconds duration = 10s;
  std::string congestion_control = "bbr";
  std::chrono::nanoseconds expected_rtt = 1ms;
  std::uint32_t chunk_bytes = 64 * 1024;
  std::size_t frame_bytes = 1 << 20;
  double distance_km = 0;  // > 0: report the land-speed-record metric
};

struct DemoOptions {
  CommonOptions common;
  std::size_t streams = 5;
  std::uint64_t rate_bps = 270'000'000;
  std::chrono::nanoseconds duration = 20s;
};

}  // namespace hdstream
