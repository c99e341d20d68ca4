// A WAN scenario: a path from the seeds (linkemu [link] and [[site]] tables) and the runs to
// make over it, each with the seed's figure and what the short (test) version must achieve.
//   Scenario s = load_scenario("tests/wan/lsr2000.toml");   // throws linkemu::ConfigError
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tools/linkemu/topology.hpp"

namespace hdstream::wan {

enum class RunMode : std::uint8_t { invalid = 0, send, bench };

struct Expectation {
  bool zero_drops = false;     // no frame dropped anywhere, no checksum error
  double min_mbps = 0;         // aggregate received goodput
  std::string at_least_run;    // label of an earlier run of the same scenario...
  double at_least_factor = 0;  // ...whose goodput this run must reach times this factor
};

// One path taken down for a while during a run, as a cut fibre: `at` after the processes
// start, for `length`.
struct PathCut {
  linkemu::Path path = linkemu::Path::invalid;
  std::chrono::nanoseconds at{};
  std::chrono::nanoseconds length{};
};

struct Run {
  std::string label;
  RunMode mode = RunMode::invalid;
  std::string transport = "tcp";  // tcp, mtcp or srt
  std::string cc = "bbr";
  std::chrono::nanoseconds
      latency{};          // send --latency (budget; SRT latency); 0: hdstream's default
  std::size_t conns = 0;  // mtcp sub-connections per feed; 0: hdstream's default
  std::size_t streams = 1;
  std::size_t processes = 1;            // sender/receiver host pairs the streams are spread over
  std::uint64_t rate_bps = 0;           // send: per-feed rate; bench: 0 = unpaced
  std::chrono::nanoseconds duration{};  // the short version (ctest)
  std::chrono::nanoseconds full_duration{};  // the full version (bench/wan)
  double seed_mbps = 0;                      // the seed's aggregate figure for this run (0: none)
  bool protect = false;        // every feed over path B as well (send --dest-b); needs [path_b]
  std::optional<PathCut> cut;  // the same in the short and the full version
  Expectation expect;
};

struct Scenario {
  std::string name;  // file stem, e.g. "sc99"
  std::string title;
  std::string seed;  // which seed document and figure
  double distance_km = 0;
  // The short version's share of the path and of every rate in it: a ctest run checks the
  // scenario's behaviour at a rate this 2-core machine carries with room to spare (the link,
  // its queue, each feed and each expected Mbps times this; delays, loss and MTU as given).
  // The full version (bench/wan) runs at the seed's rates.
  double short_scale = 1;
  linkemu::Topology topology;
  std::vector<Run> runs;
};

Scenario parse_scenario_text(std::string_view text, std::string_view source_name);
Scenario load_scenario(const std::string& path);

// `scenario` as its short version runs it: short_scale applied (see Scenario::short_scale), and
// kept in the result, which says what was scaled (not to be scaled again).
Scenario short_version(Scenario scenario);

}  // namespace hdstream::wan
