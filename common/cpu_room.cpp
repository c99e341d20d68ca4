#include "common/cpu_room.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

#include "common/clock.hpp"

namespace hdstream {
namespace {

std::optional<CpuTicks> read_cpu_ticks() {
  std::ifstream in("/proc/stat");
  std::string line;
  if (!std::getline(in, line)) return std::nullopt;
  return parse_cpu_ticks(line);
}

unsigned machine_cores() {
  return std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace

std::optional<CpuTicks> parse_cpu_ticks(std::string_view proc_stat) {
  constexpr std::string_view kLabel = "cpu ";
  if (!proc_stat.starts_with(kLabel)) return std::nullopt;
  proc_stat.remove_prefix(kLabel.size());
  CpuTicks ticks;
  int field = 0;
  while (true) {
    const auto start = proc_stat.find_first_not_of(' ');
    if (start == std::string_view::npos || proc_stat[start] == '\n') break;
    proc_stat.remove_prefix(start);
    std::uint64_t value = 0;
    const auto [end, error] =
        std::from_chars(proc_stat.data(), proc_stat.data() + proc_stat.size(), value);
    if (error != std::errc{} ||
        (end != proc_stat.data() + proc_stat.size() && *end != ' ' && *end != '\n')) {
      return std::nullopt;
    }
    proc_stat.remove_prefix(static_cast<std::size_t>(end - proc_stat.data()));
    if (value > (std::uint64_t{1} << 60)) return std::nullopt;  // no sum of 8 of them wraps
    // user nice system idle iowait irq softirq steal; guest and guest_nice are inside user
    // and nice already.
    if (field < 8) ticks.total += value;
    if (field == 3) ticks.idle = value;
    if (field == 4) ticks.iowait = value;
    ++field;
  }
  if (field < 4) return std::nullopt;  // every kernel since 2.6 gives at least user..idle
  return ticks;
}

double cores_left(const CpuTicks& before, const CpuTicks& after, double own_cpu_seconds,
                  double wall_seconds, unsigned cores) {
  const double all = static_cast<double>(cores);
  if (after.total <= before.total || after.idle < before.idle || !(wall_seconds > 0)) return all;
  // iowait may go down (proc(5)): what it lost counts as nothing.
  const std::uint64_t iowait = after.iowait > before.iowait ? after.iowait - before.iowait : 0;
  const double idle_share = static_cast<double>(after.idle - before.idle + iowait) /
                            static_cast<double>(after.total - before.total);
  const double own = std::max(own_cpu_seconds, 0.0) / wall_seconds;
  return std::clamp(idle_share * all + own, 0.0, all);
}

CpuRoom::CpuRoom()
    : start_ticks_(read_cpu_ticks()),
      start_own_s_(cpu_clock_seconds(CLOCK_PROCESS_CPUTIME_ID)),
      start_(std::chrono::steady_clock::now()) {}

double CpuRoom::cores_left(std::chrono::steady_clock::duration at_least) const {
  std::this_thread::sleep_until(start_ + at_least);
  const auto end_ticks = read_cpu_ticks();
  const double own_s = cpu_clock_seconds(CLOCK_PROCESS_CPUTIME_ID) - start_own_s_;
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (!start_ticks_ || !end_ticks) return machine_cores();
  return hdstream::cores_left(*start_ticks_, *end_ticks, own_s, wall_s, machine_cores());
}

}  // namespace hdstream
