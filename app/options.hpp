// Parsed command-line options of every subcommand, with units already converted.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

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
  // Per feed: empty -> the format's default; one -> all feeds ({stream} substituted); N -> each.
  std::vector<std::string> sources;
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
};

struct RecvOptions {
  CommonOptions common;
  std::string listen;
  std::size_t streams = 1;
  TransportKind transport = TransportKind::tcp;
  std::string output = "null";  // null | display | file:PATTERN
  bool fullscreen = false;
  std::size_t decode_queue_frames = 8;
  std::chrono::microseconds debug_decode_delay{0};  // test hook: a deliberately slow decoder
  std::chrono::nanoseconds duration = 0s;  // 0: until every stream has ended, or interrupted
};

struct DemoOptions {
  CommonOptions common;
  std::size_t streams = 5;
  std::uint64_t rate_bps = 270'000'000;
  std::chrono::nanoseconds duration = 20s;
  std::string format = "dnxhd220";
  std::vector<std::string> sources;
  std::string output = "auto";  // auto: display when there is one, else null
  bool fullscreen = false;
};

}  // namespace hdstream
