// Runs one WAN scenario: brings its path up with linkemu, runs real `hdstream` processes in the
// site namespaces, prints achieved versus seed figures and checks the scenario's expectations.
//   wan_runner --scenario tests/wan/lsr2000.toml --hdstream build/app/hdstream [--full]
//              [--results results.jsonl] [--work-dir DIR] [--only LABEL]
// Exit: 0 all expectations met, 1 one failed, 2 bad scenario file, 77 skipped (not root, no TUN).
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "common/log.hpp"
#include "tests/wan/netns_process.hpp"
#include "tests/wan/scenario.hpp"
#include "tools/linkemu/emulator.hpp"

namespace {

using namespace hdstream;
using namespace hdstream::wan;
using nlohmann::json;
using namespace std::chrono_literals;

constexpr int kSkip = 77;
constexpr std::uint16_t kPort = 9000;

std::optional<std::string> why_skip() {
  if (geteuid() != 0) return "needs root (network namespaces and TUN devices)";
  const int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
  if (fd < 0) return "/dev/net/tun is missing or not usable";
  close(fd);
  return std::nullopt;
}

// The last JSON line of `type` (and `role`, if given) in a stats file.
std::optional<json> last_line(const std::string& path, std::string_view type,
                              std::string_view role = {}) {
  std::ifstream in(path);
  std::string line;
  std::optional<json> found;
  while (std::getline(in, line)) {
    auto j = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object() || j.value("type", "") != type) continue;
    if (!role.empty() && j.value("role", "") != role) continue;
    found = std::move(j);
  }
  return found;
}

// A cumulative figure summed over streams: `field` of each stream's last line of `type` (and
// `role`, if given) in a stats file.
std::uint64_t sum_of_latest(const std::string& path, std::string_view type, const char* field,
                            std::string_view role = {}) {
  std::ifstream in(path);
  std::string line;
  std::map<int, std::uint64_t> per_stream;
  while (std::getline(in, line)) {
    auto j = json::parse(line, nullptr, false);
    if (!j.is_object() || j.value("type", "") != type) continue;
    if (!role.empty() && j.value("role", "") != role) continue;
    per_stream[j.value("stream", 0)] = j.value(field, std::uint64_t{0});
  }
  std::uint64_t total = 0;
  for (const auto& [stream, value] : per_stream) total += value;
  return total;
}

// Received goodput per statistics interval, summed over the streams of one receiver:
// (t seconds since that receiver started, Mbps), in time order.
std::map<long, double> receiver_series(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::map<long, double> per_tenth;  // keyed by t in 0.1 s, so processes' lines line up
  while (std::getline(in, line)) {
    auto j = json::parse(line, nullptr, false);
    if (j.is_object() && j.value("type", "") == "interval" && j.value("role", "") == "recv") {
      per_tenth[std::lround(j.value("t", 0.0) * 10)] += j.value("mbps", 0.0);
    }
  }
  return per_tenth;
}

std::string first_line_of(const std::string& path) {
  std::ifstream in(path);
  std::string line, last;
  while (std::getline(in, line)) {
    if (line.find("error") != std::string::npos) return line;
    if (!line.empty()) last = line;
  }
  return last;
}

// A protected run's receiver listens on both paths' addresses of its host (scenario files
// give it one process pair); others on their host's path-A address.
std::string listen_on(const Run& run, const std::string& host) {
  return fmt::format("{}:{}", run.protect ? "0.0.0.0" : host, kPort);
}

struct Outcome {
  double mbps = 0;  // aggregate verified goodput at the receivers
  double sender_cpu_percent = 0, receiver_cpu_percent = 0;
  std::uint64_t drops = 0, checksum_errors = 0, retransmits = 0;
  std::uint64_t protected_frames = 0;  // protected runs: frames one path alone would have lost
  std::uint64_t send_drops = 0, recv_drops = 0;  // as each end counted them
  std::uint64_t emulator_drops = 0, late_packets = 0, forwarded = 0, queue_drops = 0,
                loss_drops = 0;
  bool refused = false;  // a sender exited 2: the runner asked for something hdstream refuses
  std::map<long, double> series;  // aggregate received Mbps per interval (t in 0.1 s)
  std::vector<std::string> failures;
};

linkemu::DirectionStats total(const linkemu::EmulatorStats& stats) {
  linkemu::DirectionStats sum;
  for (const auto& d : stats.directions) {
    sum.packets_forwarded += d.packets_forwarded;
    sum.overload_drops += d.overload_drops;
    sum.kernel_drops += d.kernel_drops;
    sum.late_packets += d.late_packets;
    sum.queue_drops += d.queue_drops;
    sum.emulated_loss_drops += d.emulated_loss_drops;
  }
  return sum;
}

Outcome run_one(const Scenario& scenario, std::size_t run_index, linkemu::Emulator& wan,
                const std::string& hdstream, const std::string& work_dir, bool full) {
  const Run& run = scenario.runs[run_index];
  Outcome outcome;
  const auto& sender_site = scenario.topology.sites[0];
  const auto& receiver_site = scenario.topology.sites[1];
  const auto duration = full ? run.full_duration : run.duration;
  const auto rtt = 2 * scenario.topology.link.one_way_delay;
  const std::string mode = run.mode == RunMode::bench ? "bench" : "recv";
  const auto before = total(wan.stats());

  std::vector<std::unique_ptr<NetnsProcess>> receivers, senders;
  std::vector<std::string> recv_files, send_files, send_errs;
  for (std::size_t p = 0; p < run.processes; ++p) {
    const std::size_t streams = run.streams / run.processes + (p < run.streams % run.processes);
    const std::string host = receiver_site.hosts[p];
    const std::string base = fmt::format("{}/{}-run{}-{}", work_dir, scenario.name, run_index, p);
    std::filesystem::remove(base + ".recv.jsonl");  // a stats file left from an earlier run
    std::filesystem::remove(base + ".send.jsonl");
    recv_files.push_back(base + ".recv.jsonl");
    send_files.push_back(base + ".send.jsonl");
    send_errs.push_back(base + ".send.err");
    std::vector<std::string> recv_args{hdstream,       mode,
                                       "--listen",     listen_on(run, host),
                                       "--streams",    std::to_string(streams),
                                       "--transport",  run.transport,
                                       "--stats",      "json",
                                       "--stats-file", recv_files.back(),
                                       "--log-level",  "warn"};
    // An SRT receiver sizes its buffers from its own --latency, not the one the sender asks for
    // (SRT plays out at the larger of the two): configure both ends, as on a real link.
    if (run.transport == "srt" && run.latency.count() > 0) {
      recv_args.insert(
          recv_args.end(),
          {"--latency",
           fmt::format(
               "{}ms",
               std::chrono::duration_cast<std::chrono::milliseconds>(run.latency).count())});
    }
    receivers.push_back(std::make_unique<NetnsProcess>(wan.netns(receiver_site.name), recv_args,
                                                       base + ".recv.out", base + ".recv.err"));
    std::vector<std::string> send_args{
        hdstream,
        run.mode == RunMode::bench ? "bench" : "send",
        "--dest",
        fmt::format("{}:{}", host, kPort),
        "--streams",
        std::to_string(streams),
        "--transport",
        run.transport,
        "--cc",
        run.cc,
        "--duration",
        fmt::format("{}ms",
                    std::chrono::duration_cast<std::chrono::milliseconds>(duration).count()),
        "--rtt",
        fmt::format("{}us", std::chrono::duration_cast<std::chrono::microseconds>(rtt).count()),
        "--rate",
        run.rate_bps ? std::to_string(run.rate_bps) : "max",
        "--stats",
        "json",
        "--stats-file",
        send_files.back(),
        "--log-level",
        "warn"};
    if (run.latency.count() > 0) {
      send_args.insert(
          send_args.end(),
          {"--latency",
           fmt::format(
               "{}ms",
               std::chrono::duration_cast<std::chrono::milliseconds>(run.latency).count())});
    }
    if (run.conns > 0) send_args.insert(send_args.end(), {"--conns", std::to_string(run.conns)});
    if (run.protect) {
      send_args.insert(
          send_args.end(),
          {"--dest-b", fmt::format("{}:{}", linkemu::address_on(linkemu::Path::b, host), kPort)});
    }
    if (scenario.distance_km > 0 && run.mode == RunMode::bench) {
      send_args.insert(send_args.end(), {"--distance-km", fmt::format("{}", scenario.distance_km)});
    }
    // The sender retries a refused connect, so it need not wait for the receiver to listen.
    senders.push_back(std::make_unique<NetnsProcess>(wan.netns(sender_site.name), send_args,
                                                     base + ".send.out", send_errs.back()));
  }
  if (run.cut) {
    // The cut's timing is the scenario's definition: nothing is being waited for.
    std::this_thread::sleep_for(run.cut->at);
    wan.set_path_down(run.cut->path, true);
    std::this_thread::sleep_for(run.cut->length);
    wan.set_path_down(run.cut->path, false);
  }
  for (std::size_t p = 0; p < senders.size(); ++p) {
    if (!senders[p]->wait_for(duration + 30s)) {
      senders[p]->kill();
      outcome.failures.push_back(fmt::format("sender {} did not finish in time", p));
    }
    const int code = senders[p]->exit_code();
    if (code == 2) {
      // Every transport a scenario can name is built in: a usage error is the runner's or the
      // scenario's mistake (or a broken CLI), and the run measured nothing.
      outcome.refused = true;
      outcome.failures.push_back(
          fmt::format("sender {} exited 2 (usage error): {}", p, first_line_of(send_errs[p])));
    } else if (code != 0 && code != 3) {
      outcome.failures.push_back(
          fmt::format("sender {} exited {}: {}", p, code, first_line_of(send_errs[p])));
    }
  }
  for (std::size_t p = 0; p < receivers.size(); ++p) {
    // Receivers of a refused sender wait for a feed that never comes: no reason to wait long.
    if (!receivers[p]->wait_for(outcome.refused ? 1s : 15s)) {
      receivers[p]->kill();
      if (!outcome.refused)
        outcome.failures.push_back(fmt::format("receiver {} did not finish", p));
    }
  }
  if (outcome.refused) return outcome;

  for (std::size_t p = 0; p < run.processes; ++p) {
    const auto recv =
        last_line(recv_files[p], run.mode == RunMode::bench ? "bench" : "summary", "recv");
    const auto send =
        last_line(send_files[p], run.mode == RunMode::bench ? "bench" : "summary", "send");
    if (!recv || !send) {
      outcome.failures.push_back(fmt::format("process pair {} wrote no summary", p));
      continue;
    }
    outcome.mbps += recv->value("mbps", 0.0);
    for (const auto& [tenth, mbps] : receiver_series(recv_files[p])) outcome.series[tenth] += mbps;
    // A frame the sender dropped is also a gap the receiver counts (and with far-end feedback the
    // two ends report the same frames): the larger of the two, never their sum.
    const auto send_drops = send->value("drops", std::uint64_t{0});
    const auto recv_drops = recv->value("drops", std::uint64_t{0});
    outcome.send_drops += send_drops;
    outcome.recv_drops += recv_drops;
    outcome.drops += std::max(send_drops, recv_drops);
    outcome.checksum_errors += recv->value("checksum_errors", std::uint64_t{0});
    outcome.retransmits += run.mode == RunMode::bench
                               ? send->value("retransmits", std::uint64_t{0})
                               : sum_of_latest(send_files[p], "interval", "retransmits", "send");
    // Frames only one leg delivered: what one path alone would have lost.
    outcome.protected_frames += sum_of_latest(recv_files[p], "protection", "protected");
    outcome.sender_cpu_percent += send->value("cpu_percent", 0.0);
    outcome.receiver_cpu_percent += recv->value("cpu_percent", 0.0);
  }
  const auto after = total(wan.stats());
  outcome.emulator_drops =
      (after.overload_drops - before.overload_drops) + (after.kernel_drops - before.kernel_drops);
  outcome.late_packets = after.late_packets - before.late_packets;
  outcome.forwarded = after.packets_forwarded - before.packets_forwarded;
  outcome.queue_drops = after.queue_drops - before.queue_drops;
  outcome.loss_drops = after.emulated_loss_drops - before.emulated_loss_drops;
  return outcome;
}

int run_scenario(const Scenario& scenario, const std::string& hdstream, const std::string& work_dir,
                 bool full, const std::string& results_path, const std::string& only) {
  const auto& topology = scenario.topology;
  const std::string path = topology.path_b ? fmt::format("A: {}; B: {}", topology.link.describe(),
                                                         topology.path_b->describe())
                                           : topology.link.describe();
  fmt::print("scenario {}: {}\n  path: {}\n  seed: {}\n", scenario.name, scenario.title, path,
             scenario.seed);
  // A ratio to the seed's figure means something only at the full version's rates.
  const bool at_seed_rates = full || scenario.short_scale == 1;
  if (!at_seed_rates) {
    fmt::print("  short version: the path and every rate at {:g} of the full version's (--full)\n",
               scenario.short_scale);
  }
  linkemu::Emulator wan(scenario.topology);
  wan.up();

  std::map<std::string, double> achieved;
  bool all_pass = true;
  std::ofstream results;
  if (!results_path.empty()) results.open(results_path, std::ios::app);
  fmt::print("  {:<22} {:>10} {:>10} {:>6} {:>6} {:>5} {:>6} {:>8} {:>8} {:>7}  {}\n", "run",
             "Mbps", "seed Mbps", "ratio", "drops", "cksum", "retx", "q-drops", "emu-drop", "late%",
             "result");
  for (std::size_t index = 0; index < scenario.runs.size(); ++index) {
    const Run& run = scenario.runs[index];
    if (!only.empty() && run.label != only) continue;
    Outcome o = run_one(scenario, index, wan, hdstream, work_dir, full);
    std::vector<std::string> failures = o.failures;
    if (!o.refused) {
      if (o.checksum_errors > 0)
        failures.push_back(fmt::format("{} checksum errors", o.checksum_errors));
      if (run.expect.zero_drops && o.drops > 0)
        failures.push_back(fmt::format("{} frames dropped", o.drops));
      if (o.mbps < run.expect.min_mbps) {
        failures.push_back(
            fmt::format("{:.0f} Mbps is below the expected {:.0f}", o.mbps, run.expect.min_mbps));
      }
      if (!run.expect.at_least_run.empty()) {
        // With --only the reference run was not made: nothing to compare with.
        const double reference =
            achieved.count(run.expect.at_least_run) ? achieved[run.expect.at_least_run] : 0.0;
        if (o.mbps < run.expect.at_least_factor * reference) {
          failures.push_back(fmt::format("{:.0f} Mbps is below {:g} x '{}' ({:.0f} Mbps)", o.mbps,
                                         run.expect.at_least_factor, run.expect.at_least_run,
                                         reference));
        }
      }
    }
    achieved[run.label] = o.mbps;
    const double late_percent =
        o.forwarded ? 100.0 * static_cast<double>(o.late_packets) / static_cast<double>(o.forwarded)
                    : 0;
    const bool overloaded = o.emulator_drops > 0 || late_percent > 1.0;
    const std::string result = failures.empty() ? "pass" : "FAIL";
    if (!failures.empty()) all_pass = false;
    fmt::print(
        "  {:<22} {:>10.1f} {:>10} {:>6} {:>6} {:>5} {:>6} {:>8} {:>8} {:>7.2f}  {}\n", run.label,
        o.mbps, run.seed_mbps > 0 ? fmt::format("{:.0f}", run.seed_mbps) : "-",
        run.seed_mbps > 0 && at_seed_rates ? fmt::format("{:.2f}", o.mbps / run.seed_mbps) : "-",
        o.drops, o.checksum_errors, o.retransmits, o.queue_drops, o.emulator_drops, late_percent,
        result);
    for (const auto& why : failures) fmt::print("      fail: {}\n", why);
    if (overloaded) {
      fmt::print(
          "      note: the emulator itself dropped or delayed packets (overloaded machine); "
          "this run measured the machine as much as the path\n");
    }
    if (results) {
      json line = {{"scenario", scenario.name},
                   {"title", scenario.title},
                   {"path", path},
                   {"run", run.label},
                   {"mode", run.mode == RunMode::bench ? "bench" : "send"},
                   {"transport", run.transport},
                   {"cc", run.cc},
                   {"streams", run.streams},
                   {"duration_s",
                    std::chrono::duration<double>(full ? run.full_duration : run.duration).count()},
                   {"mbps", o.mbps},
                   {"seed_mbps", run.seed_mbps},
                   {"scale", full ? 1.0 : scenario.short_scale},
                   {"drops", o.drops},
                   {"send_drops", o.send_drops},
                   {"recv_drops", o.recv_drops},
                   {"checksum_errors", o.checksum_errors},
                   {"retransmits", o.retransmits},
                   {"queue_drops", o.queue_drops},
                   {"loss_drops", o.loss_drops},
                   {"emulator_drops", o.emulator_drops},
                   {"late_percent", late_percent},
                   {"sender_cpu_percent", o.sender_cpu_percent},
                   {"receiver_cpu_percent", o.receiver_cpu_percent},
                   {"latency_ms", std::chrono::duration<double, std::milli>(run.latency).count()},
                   {"conns", run.conns},
                   {"protect", run.protect},
                   {"protected_frames", o.protected_frames},
                   {"result", result}};
      json series = json::array();
      for (const auto& [tenth, mbps] : o.series) series.push_back({tenth / 10.0, mbps});
      line["series"] = std::move(series);
      if (run.cut) {
        line["cut"] = {{"path", linkemu::to_string(run.cut->path)},
                       {"at_s", std::chrono::duration<double>(run.cut->at).count()},
                       {"length_s", std::chrono::duration<double>(run.cut->length).count()}};
      }
      if (scenario.distance_km > 0) {
        line["petabit_metres_per_s"] = o.mbps * 1e6 * scenario.distance_km * 1e3 / 1e15;
      }
      results << line.dump() << std::endl;
    }
  }
  wan.down();
  return all_pass ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("wan_runner: one WAN scenario over linkemu with real hdstream processes");
  std::string scenario_path, hdstream_path, results_path, work_dir, only;
  bool full = false;
  app.add_option("--scenario", scenario_path, "Scenario TOML file")->required();
  app.add_option("--hdstream", hdstream_path, "Path of the hdstream binary")->required();
  app.add_flag("--full", full, "Run the full durations at the full rates (no short_scale)");
  app.add_option("--results", results_path, "Append one JSON line per run here");
  app.add_option("--work-dir", work_dir, "Where stats and logs of the processes go");
  app.add_option("--only", only, "Make only the run with this label");
  CLI11_PARSE(app, argc, argv);
  set_log_level(spdlog::level::warn);

  Scenario scenario;
  try {
    scenario = load_scenario(scenario_path);
  } catch (const linkemu::ConfigError& error) {
    fmt::print(stderr, "wan_runner: error: {}\n", error.what());
    return 2;
  }
  if (!full) scenario = short_version(std::move(scenario));
  if (auto reason = why_skip()) {
    fmt::print("SKIP scenario {}: {}\n", scenario.name, *reason);
    return kSkip;
  }
  if (work_dir.empty())
    work_dir =
        (std::filesystem::temp_directory_path() / ("hdstream-wan-" + scenario.name)).string();
  std::filesystem::create_directories(work_dir);
  try {
    return run_scenario(scenario, std::filesystem::absolute(hdstream_path).string(), work_dir, full,
                        results_path, only);
  } catch (const std::exception& error) {
    fmt::print(stderr, "wan_runner: {}\n", error.what());
    return 1;
  }
}
