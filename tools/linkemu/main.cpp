// linkemu: a user-space WAN between network namespaces, for hdstream's scenario tests.
//   linkemu up --rtt 97ms --rate 1G --mtu 4470 --prefix lsr-     # Ctrl-C brings it down
//   ip netns exec lsr-b iperf3 -s &  ip netns exec lsr-a iperf3 -c 198.18.1.1
//   linkemu up --config tests/wan/sc99.toml --stats-file counters.jsonl
//   linkemu down --prefix lsr-      linkemu sweep      linkemu list
//   kill -USR1 <pid of up>   # link down (cable pulled)     kill -USR2 <pid of up>   # link up
//   linkemu up --rtt 20ms --path-b-rtt 35ms      # a second, independent path on 198.19.x.y
//   kill -s RTMIN <pid>  # path A down;  RTMIN+1 A up;  RTMIN+2 B down;  RTMIN+3 B up
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "common/log.hpp"
#include "common/units.hpp"
#include "tools/linkemu/emulator.hpp"
#include "tools/linkemu/netns.hpp"
#include "tools/linkemu/topology.hpp"

namespace {

using namespace hdstream::linkemu;

struct UpFlags {
  std::string config, prefix, stats_file, ready_file;
  std::string rtt = "0", rate = "unlimited", queue, jitter, sites = "a,b";
  double loss = 0;
  int mtu = 1500, hosts = 1;
  std::string interval = "1s";
  // Path B, if any --path-b-* flag is given; unset keys default as [path_b]'s do.
  bool path_b = false;
  std::string path_b_rtt = "0", path_b_rate = "unlimited", path_b_queue, path_b_jitter;
  double path_b_loss = 0;
  int path_b_mtu = 1500;
};

// Real-time signals that take one path down or up: SIGRTMIN + this.
struct PathSignal {
  int offset;
  Path path;
  bool down;
};
constexpr PathSignal kPathSignals[] = {
    {0, Path::a, true}, {1, Path::a, false}, {2, Path::b, true}, {3, Path::b, false}};

// Flags become the same TOML a config file holds, so both go through one validator.
std::string topology_toml(const UpFlags& f) {
  std::string text = fmt::format("[link]\nrtt = \"{}\"\nrate = \"{}\"\nmtu = {}\nloss = {}\n",
                                 f.rtt, f.rate, f.mtu, f.loss);
  if (!f.queue.empty()) text += fmt::format("queue = \"{}\"\n", f.queue);
  if (!f.jitter.empty()) text += fmt::format("jitter = \"{}\"\n", f.jitter);
  if (f.path_b) {
    text += fmt::format("[path_b]\nrtt = \"{}\"\nrate = \"{}\"\nmtu = {}\nloss = {}\n",
                        f.path_b_rtt, f.path_b_rate, f.path_b_mtu, f.path_b_loss);
    if (!f.path_b_queue.empty()) text += fmt::format("queue = \"{}\"\n", f.path_b_queue);
    if (!f.path_b_jitter.empty()) text += fmt::format("jitter = \"{}\"\n", f.path_b_jitter);
  }
  std::size_t begin = 0;
  while (begin <= f.sites.size()) {
    const auto end = std::min(f.sites.find(',', begin), f.sites.size());
    text += fmt::format("[[site]]\nname = \"{}\"\nhosts = {}\n", f.sites.substr(begin, end - begin),
                        f.hosts);
    begin = end + 1;
  }
  return text;
}

int run_up(const UpFlags& flags) {
  if (flags.path_b && !flags.config.empty()) {
    throw ConfigError("--path-b-* flags describe path B without --config; in a file, use [path_b]");
  }
  Topology topology = flags.config.empty() ? parse_topology_text(topology_toml(flags), "flags")
                                           : load_topology(flags.config);
  if (!flags.prefix.empty()) topology.prefix = flags.prefix;
  const auto interval = hdstream::parse_duration(flags.interval);

  // Signals are taken synchronously below; block them before any thread exists.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGUSR1);  // take the link down (a flap test pulls the cable)
  sigaddset(&signals, SIGUSR2);  // bring it back up
  for (const auto& s : kPathSignals) sigaddset(&signals, SIGRTMIN + s.offset);  // one path
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  std::ofstream stats_out;
  std::ostream* out = &std::cout;
  if (!flags.stats_file.empty() && flags.stats_file != "-") {
    stats_out.open(flags.stats_file, std::ios::trunc);
    if (!stats_out) throw std::runtime_error("cannot write --stats-file " + flags.stats_file);
    out = &stats_out;
  }
  Emulator emulator(std::move(topology));
  emulator.up();
  for (const auto& site : emulator.topology().sites) {
    hdstream::logger("linkemu")->info("site {}: namespace {}, hosts {}", site.name,
                                      emulator.netns(site.name), fmt::join(site.hosts, " "));
    if (emulator.topology().path_b) {
      hdstream::logger("linkemu")->info("site {}: path b hosts {}", site.name,
                                        fmt::join(site.hosts_on(Path::b), " "));
    }
  }
  if (!flags.ready_file.empty()) std::ofstream(flags.ready_file) << emulator.prefix() << '\n';

  timespec wait{};
  wait.tv_sec = interval.count() / 1'000'000'000;
  wait.tv_nsec = interval.count() % 1'000'000'000;
  for (;;) {
    const int signal_number = sigtimedwait(&signals, nullptr, &wait);
    if (signal_number == SIGUSR1 || signal_number == SIGUSR2) {
      emulator.set_link_down(signal_number == SIGUSR1);
    }
    for (const auto& s : kPathSignals) {
      if (signal_number != SIGRTMIN + s.offset) continue;
      if (emulator.topology().has(s.path)) {
        emulator.set_path_down(s.path, s.down);
      } else {
        hdstream::logger("linkemu")->warn("signal ignored: there is no path {}", to_string(s.path));
      }
    }
    *out << emulator.stats_json().dump() << std::endl;
    if (signal_number == SIGINT || signal_number == SIGTERM) break;
  }
  emulator.down();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("linkemu: user-space WAN link emulator between network namespaces", "linkemu");
  app.require_subcommand(1);
  UpFlags up;
  auto* up_cmd = app.add_subcommand(
      "up",
      "Bring a topology up; runs until SIGINT/SIGTERM; SIGUSR1 link down, SIGUSR2 up; "
      "SIGRTMIN+0/1 path A down/up, SIGRTMIN+2/3 path B down/up");
  up_cmd->add_option("--config", up.config, "TOML file with [link] and [[site]] tables");
  up_cmd->add_option("--prefix", up.prefix, "Namespace name prefix (default hds<pid>-)");
  up_cmd->add_option("--rtt", up.rtt, "Round-trip time, e.g. 97ms")->capture_default_str();
  up_cmd->add_option("--rate", up.rate, "Bottleneck rate, e.g. 1G, or unlimited")
      ->capture_default_str();
  up_cmd->add_option("--queue", up.queue,
                     "Drop-tail queue: bytes (4M) or BDPs (1bdp); default 1bdp");
  up_cmd->add_option("--loss", up.loss, "Random loss probability, e.g. 0.001")
      ->capture_default_str();
  up_cmd->add_option("--jitter", up.jitter, "Delay jitter (+-), never reorders, e.g. 1ms");
  up_cmd->add_option("--mtu", up.mtu, "MTU of the link")->capture_default_str();
  up_cmd->add_option("--sites", up.sites, "Comma-separated site names")->capture_default_str();
  up_cmd->add_option("--hosts", up.hosts, "Host addresses per site (198.18.<site>.<n>)")
      ->capture_default_str();
  const CLI::Option* path_b_flags[] = {
      up_cmd->add_option("--path-b-rtt", up.path_b_rtt, "Path B: round-trip time (198.19.x.y)"),
      up_cmd->add_option("--path-b-rate", up.path_b_rate, "Path B: bottleneck rate"),
      up_cmd->add_option("--path-b-queue", up.path_b_queue, "Path B: drop-tail queue"),
      up_cmd->add_option("--path-b-loss", up.path_b_loss, "Path B: random loss probability"),
      up_cmd->add_option("--path-b-jitter", up.path_b_jitter, "Path B: delay jitter (+-)"),
      up_cmd->add_option("--path-b-mtu", up.path_b_mtu, "Path B: MTU"),
  };
  up_cmd->add_option("--stats-file", up.stats_file, "Counters as JSON lines (default stdout)");
  up_cmd->add_option("--interval", up.interval, "Counters interval")->capture_default_str();
  up_cmd->add_option("--ready-file", up.ready_file,
                     "Written (with the prefix) once the link is up");

  std::string down_prefix;
  auto* down_cmd = app.add_subcommand("down", "Delete the namespaces of a prefix");
  down_cmd->add_option("--prefix", down_prefix, "Namespace name prefix")->required();
  auto* sweep_cmd = app.add_subcommand("sweep", "Delete namespaces left by crashed runs");
  auto* list_cmd = app.add_subcommand("list", "List namespaces");
  CLI11_PARSE(app, argc, argv);
  for (const auto* flag : path_b_flags) up.path_b |= flag->count() > 0;

  try {
    if (up_cmd->parsed()) return run_up(up);
    if (down_cmd->parsed()) {
      if (down_prefix.empty()) throw ConfigError("--prefix must not be empty");
      fmt::print("deleted {} namespace(s)\n", delete_netns_with_prefix(down_prefix));
    } else if (sweep_cmd->parsed()) {
      fmt::print("deleted {} stale namespace(s)\n", sweep_stale_netns());
    } else if (list_cmd->parsed()) {
      for (const auto& name : list_netns()) fmt::print("{}\n", name);
    }
    return 0;
  } catch (const ConfigError& error) {
    fmt::print(stderr, "linkemu: error: {}\n", error.what());
    return 2;
  } catch (const std::exception& error) {
    fmt::print(stderr, "linkemu: {}\n", error.what());
    return 1;
  }
}
