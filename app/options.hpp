// Parsed command-line options of every subcommand, with units already converted.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
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
  std::optional<bool> gui;     // --gui / --no-gui; unset: the command's default
  std::string metrics_listen;  // --metrics-listen ADDR; empty: no telemetry server
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
};

struct RecvOptions {
  CommonOptions common;
  std::string listen;
  std::size_t streams = 1;
  TransportKind transport = TransportKind::tcp;
  std::string output = "null";
  std::chrono::nanoseconds duration = 0s;  // 0: until every stream has ended, or interrupted
};

struct MonitorOptions {
  CommonOptions common;
  std::vector<std::string> hosts;  // HOST:PORT of each --metrics-listen to watch
  std::chrono::nanoseconds poll = 500ms;
  std::chrono::nanoseconds duration = 0s;  // 0: until interrupted or the window closes
};

struct DemoOptions {
  CommonOptions common;
  std::size_t streams = 5;
  std::uint64_t rate_bps = 270'000'000;
  std::chrono::nanoseconds duration = 20s;
};

}  // namespace hdstream
