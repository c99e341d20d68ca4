// What `hdstream bench` reports, NTttcp style: a per-stream table (throughput, RTT,
// retransmits) and totals (goodput, CPU, cycles per byte, land-speed-record metric), as text or
// as one JSON line of type "bench" (the stats schema family).
//   CpuClock cpu;  ...run...;  BenchResult r = make_bench_result(role, snapshot, cpu.elapsed(),
//   ...); print_bench(r, StatsFormat::text, std::cout);
#pragma once

#include <chrono>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "stats/report.hpp"
#include "stats/snapshot.hpp"
#include "stats/summary.hpp"

namespace hdstream {

// Process CPU time (getrusage) and wall time since construction.
class CpuClock {
 public:
  CpuClock();
  struct Elapsed {
    double wall_s = 0, user_s = 0, system_s = 0;
  };
  Elapsed elapsed() const;

 private:
  std::chrono::steady_clock::time_point wall_start_;
  double user_start_s_ = 0, system_start_s_ = 0;
};

// The nominal core clock used for cycles per byte, and where it came from.
struct NominalClock {
  double hz = 0;
  std::string source;  // "cpufreq base_frequency", "cpufreq cpuinfo_max_freq", "/proc/cpuinfo"
};
NominalClock nominal_clock();

struct BenchStream {
  std::uint16_t stream = 0;
  std::uint64_t bytes = 0;
  double seconds = 0;
  double mbps = 0;
  double rtt_ms = 0;
  std::uint64_t retransmits = 0;
};

struct BenchResult {
  Role role = Role::send;
  std::string transport;
  std::vector<BenchStream> streams;
  double duration_s = 0;  // the measured window
  std::uint64_t bytes = 0;
  double mbps = 0;  // aggregate goodput over duration_s
  std::uint64_t drops = 0, checksum_errors = 0, retransmits = 0;
  CpuClock::Elapsed cpu;
  unsigned cores = 1;
  NominalClock clock;
  double distance_km = 0;
  bool pass = false;

  double cpu_percent() const;           // of one core
  double cycles_per_byte() const;       // CPU seconds x nominal Hz / bytes
  double petabit_metres_per_s() const;  // bits/s x metres / 1e15; 0 without a distance
};

// `window_s` is the time the bytes took (the sender's open-to-close, the receiver's first to
// last frame); every stream's rate is over its own span when known, else over the window.
BenchResult make_bench_result(const Snapshot& last, const Summary& summary, double window_s,
                              const CpuClock::Elapsed& cpu, double distance_km);

nlohmann::ordered_json bench_json(const BenchResult& result);
void print_bench(const BenchResult& result, StatsFormat format, std::ostream& out);

}  // namespace hdstream
