#include "app/bench_report.hpp"

#include <sys/resource.h>

#include <fstream>
#include <string>
#include <thread>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "stats/json_fields.hpp"

namespace hdstream {
namespace {

double seconds(const timeval& tv) {
  return static_cast<double>(tv.tv_sec) + tv.tv_usec / 1e6;
}

double read_khz(const char* path) {
  std::ifstream in(path);
  double khz = 0;
  in >> khz;
  return khz;
}

}  // namespace

CpuClock::CpuClock() : wall_start_(std::chrono::steady_clock::now()) {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  user_start_s_ = seconds(usage.ru_utime);
  system_start_s_ = seconds(usage.ru_stime);
}

CpuClock::Elapsed CpuClock::elapsed() const {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  Elapsed e;
  e.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start_).count();
  e.user_s = seconds(usage.ru_utime) - user_start_s_;
  e.system_s = seconds(usage.ru_stime) - system_start_s_;
  return e;
}

NominalClock nominal_clock() {
  // The nominal (base) clock, not the momentary one: cycles per byte stays comparable across
  // runs. Virtual machines often expose no cpufreq; /proc/cpuinfo then gives the host's base.
  if (double khz = read_khz("/sys/devices/system/cpu/cpu0/cpufreq/base_frequency"); khz > 0) {
    return {khz * 1e3, "cpufreq base_frequency"};
  }
  if (double khz = read_khz("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq"); khz > 0) {
    return {khz * 1e3, "cpufreq cpuinfo_max_freq"};
  }
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("cpu MHz", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos)
        return {std::stod(line.substr(colon + 1)) * 1e6, "/proc/cpuinfo"};
    }
  }
  return {0, "unknown"};
}

double BenchResult::cpu_percent() const {
  return cpu.wall_s > 0 ? 100.0 * (cpu.user_s + cpu.system_s) / cpu.wall_s : 0;
}

double BenchResult::cycles_per_byte() const {
  return bytes > 0 ? (cpu.user_s + cpu.system_s) * clock.hz / static_cast<double>(bytes) : 0;
}

double BenchResult::petabit_metres_per_s() const {
  return mbps * 1e6 * distance_km * 1e3 / 1e15;
}

BenchResult make_bench_result(const Snapshot& last, const Summary& summary, double window_s,
                              const CpuClock::Elapsed& cpu, double distance_km) {
  BenchResult r;
  r.role = last.role;
  r.duration_s = window_s;
  r.cpu = cpu;
  r.cores = std::max(1u, std::thread::hardware_concurrency());
  r.clock = nominal_clock();
  r.distance_km = distance_km;
  r.drops = summary.drops;
  r.checksum_errors = summary.checksum_errors;
  r.pass = summary.pass;
  for (const auto& s : last.streams) {
    r.transport = s.transport;
    BenchStream b;
    b.stream = s.stream;
    b.bytes = s.bytes;
    b.seconds = window_s;
    b.mbps = window_s > 0 ? static_cast<double>(s.bytes) * 8 / window_s / 1e6 : 0;
    b.rtt_ms = s.rtt_ms;
    b.retransmits = s.retransmits;
    r.bytes += s.bytes;
    r.retransmits += s.retransmits;
    r.streams.push_back(b);
  }
  r.mbps = window_s > 0 ? static_cast<double>(r.bytes) * 8 / window_s / 1e6 : 0;
  return r;
}

nlohmann::ordered_json bench_json(const BenchResult& r) {
  nlohmann::ordered_json streams = nlohmann::ordered_json::array();
  for (const auto& s : r.streams) {
    streams.push_back({{"stream", s.stream},
                       {"bytes", s.bytes},
                       {"mbps", round3(s.mbps)},
                       {"rtt_ms", round3(s.rtt_ms)},
                       {"retransmits", s.retransmits}});
  }
  nlohmann::ordered_json j = {
      {"type", "bench"},
      {"role", to_string(r.role)},
      {"transport", r.transport},
      {"streams", r.streams.size()},
      {"duration_s", round3(r.duration_s)},
      {"bytes", r.bytes},
      {"mbps", round3(r.mbps)},
      {"drops", r.drops},
      {"checksum_errors", r.checksum_errors},
      {"retransmits", r.retransmits},
      {"cpu_user_s", round3(r.cpu.user_s)},
      {"cpu_system_s", round3(r.cpu.system_s)},
      {"cpu_percent", round3(r.cpu_percent())},
      {"cores", r.cores},
      {"clock_ghz", round3(r.clock.hz / 1e9)},
      {"clock_source", r.clock.source},
      {"cycles_per_byte", round3(r.cycles_per_byte())},
  };
  if (r.distance_km > 0) {
    j["distance_km"] = r.distance_km;
    j["petabit_metres_per_s"] = round3(r.petabit_metres_per_s());
  }
  j["verdict"] = r.pass ? "pass" : "fail";
  j["per_stream"] = std::move(streams);
  return j;
}

void print_bench(const BenchResult& r, StatsFormat format, std::ostream& out) {
  if (format == StatsFormat::json) {
    out << bench_json(r).dump() << std::endl;
    return;
  }
  fmt::print(out, "bench {} ({}), {} stream(s), {:.2f} s\n", to_string(r.role), r.transport,
             r.streams.size(), r.duration_s);
  fmt::print(out, "  {:>6}  {:>14}  {:>10}  {:>9}  {:>11}\n", "stream", "bytes", "Mbps", "RTT ms",
             "retransmits");
  for (const auto& s : r.streams) {
    fmt::print(out, "  {:>6}  {:>14}  {:>10.1f}  {:>9.2f}  {:>11}\n", s.stream, s.bytes, s.mbps,
               s.rtt_ms, s.retransmits);
  }
  fmt::print(out, "  {:>6}  {:>14}  {:>10.1f}  {:>9}  {:>11}\n", "total", r.bytes, r.mbps, "",
             r.retransmits);
  fmt::print(out,
             "  goodput {:.1f} Mbps verified ({} drops, {} checksum errors); CPU {:.1f}% of one "
             "core ({:.1f}% of {} cores: user {:.2f} s, sys {:.2f} s); {:.2f} cycles/byte at "
             "{:.2f} GHz ({})\n",
             r.mbps, r.drops, r.checksum_errors, r.cpu_percent(), r.cpu_percent() / r.cores,
             r.cores, r.cpu.user_s, r.cpu.system_s, r.cycles_per_byte(), r.clock.hz / 1e9,
             r.clock.source);
  if (r.distance_km > 0) {
    fmt::print(out, "  land-speed-record metric: {:.3f} Gbps x {:g} km = {:.3f} petabit-metres/s\n",
               r.mbps / 1e3, r.distance_km, r.petabit_metres_per_s());
  }
  fmt::print(out, "  verdict: {}\n", r.pass ? "PASS" : "FAIL");
  out.flush();
}

}  // namespace hdstream
