#include "tools/linkemu/emulator.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "common/log.hpp"
#include "tools/linkemu/command.hpp"
#include "tools/linkemu/netns.hpp"

namespace hdstream::linkemu {
namespace {

std::shared_ptr<spdlog::logger> log() {
  return logger("linkemu");
}

std::int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::uint32_t ipv4(const std::string& text) {
  in_addr parsed{};
  inet_pton(AF_INET, text.c_str(), &parsed);
  return ntohl(parsed.s_addr);
}

// Room for everything the link can hold: the queue plus rate x (delay + jitter), with slack
// for per-record overhead. With no rate cap, assume what one emulator thread can move.
std::size_t delay_line_bytes(const LinkProfile& link) {
  const double ceiling_bps = link.rate_bps ? static_cast<double>(link.rate_bps) : 10e9;
  const double in_flight_s =
      std::chrono::duration<double>(link.one_way_delay + link.jitter).count() + 0.01;
  return static_cast<std::size_t>(std::min(
      2.0 * (static_cast<double>(link.queue_bytes) + ceiling_bps / 8 * in_flight_s) + (4 << 20),
      2.0 * (1u << 30)));
}

// Path A keeps the seeds it always had (runs stay reproducible); path B's differ in the top byte.
std::uint64_t direction_seed(Path path, std::uint32_t from, std::uint32_t to) {
  const std::uint64_t seed = 0x6c696e6b656d75ULL ^ (std::uint64_t{from} << 32) ^ to;
  return path == Path::b ? seed ^ (std::uint64_t{'b'} << 56) : seed;
}

std::string forwarder_name(Path path, std::uint32_t site) {
  return path == Path::a ? std::to_string(site) : fmt::format("b{}", site);
}

}  // namespace

const char* tun_name(Path path) {
  if (path == Path::a) return kTunName;
  if (path == Path::b) return kPathBTunName;
  throw std::invalid_argument("no such path");
}

bool EmulatorStats::overloaded() const {
  // A few late packets are the scheduler on a shared machine; more than 1% late means the
  // emulator, not the emulated link, is setting the pace.
  return std::any_of(directions.begin(), directions.end(), [](const DirectionStats& d) {
    return d.overload_drops > 0 || d.kernel_drops > 0 || d.late_packets * 100 > d.packets_forwarded;
  });
}

Emulator::Emulator(Topology topology) : topology_(std::move(topology)) {
  if (topology_.prefix.empty()) topology_.prefix = default_prefix();
  for (const Path path : topology_.paths()) {
    // Path B's addresses are derived from path A's: a topology built by hand may not allow it.
    for (const auto& site : topology_.sites) site.hosts_on(path);
    PathLinks& links = paths_.emplace_back();
    links.path = path;
    links.control->random_loss = topology_.profile(path).random_loss;
  }
}

Emulator::~Emulator() {
  down();
}

std::string Emulator::netns(const std::string& site_name) const {
  return topology_.prefix + site(site_name).name;
}

const Site& Emulator::site(const std::string& name) const {
  for (const auto& s : topology_.sites) {
    if (s.name == name) return s;
  }
  throw std::runtime_error(fmt::format("no site named '{}'", name));
}

std::uint64_t Emulator::tcp_buffer_max_bytes() const {
  // Autotuning needs about twice the BDP (half the buffer is overhead at the default
  // tcp_adv_win_scale); four leaves room for the queue. Never below 64 MiB, never above 1 GiB.
  // With two paths, the longer fatter one sets it.
  std::uint64_t four_bdp = 0;
  for (const Path path : topology_.paths()) {
    const LinkProfile& link = topology_.profile(path);
    four_bdp = std::max(four_bdp, 4 * (link.bdp_bytes() + link.queue_bytes));
  }
  return std::clamp<std::uint64_t>(four_bdp, 64u << 20, 1u << 30);
}

const Emulator::PathLinks& Emulator::links(Path path) const {
  for (const auto& links : paths_) {
    if (links.path == path) return links;
  }
  throw std::invalid_argument(
      fmt::format("the topology has no path {} (no [path_b] table)", to_string(path)));
}

void Emulator::configure_site(std::size_t index) {
  const Site& site = topology_.sites[index];
  const std::string ns = topology_.prefix + site.name;
  create_netns(ns);
  created_.push_back(ns);
  // Before the link comes up: no IPv6 router solicitations wandering into the link.
  write_sysctl(ns, "net/ipv6/conf/all/disable_ipv6", "1");
  write_sysctl(ns, "net/ipv6/conf/default/disable_ipv6", "1");
  const std::string max = std::to_string(tcp_buffer_max_bytes());
  write_sysctl(ns, "net/ipv4/tcp_rmem", "4096 131072 " + max);
  write_sysctl(ns, "net/ipv4/tcp_wmem", "4096 16384 " + max);
  // Each run starts from a clean slate, not from the cwnd/ssthresh a previous run cached.
  write_sysctl(ns, "net/ipv4/tcp_no_metrics_save", "1");
  for (auto& links : paths_) attach_path(index, links);
}

void Emulator::attach_path(std::size_t index, PathLinks& links) {
  const Site& site = topology_.sites[index];
  const std::string ns = topology_.prefix + site.name;
  const std::string tun = tun_name(links.path);
  const auto hosts = site.hosts_on(links.path);
  links.tuns.push_back(std::make_unique<TunDevice>(ns, tun));
  run_checked({"ip", "-n", ns, "link", "set", tun, "mtu",
               std::to_string(topology_.profile(links.path).mtu_bytes), "txqueuelen", "10000",
               "up"});
  for (const auto& host : hosts) {
    run_checked({"ip", "-n", ns, "addr", "add", host + "/32", "dev", tun});
  }
  // Remote host k is reached from local host k (modulo): five sender hosts talking to five
  // receiver hosts pair up one to one, as the machines did at SC99.
  for (const auto& other : topology_.sites) {
    if (&other == &site) continue;
    const auto other_hosts = other.hosts_on(links.path);
    for (std::size_t k = 0; k < other_hosts.size(); ++k) {
      run_checked({"ip", "-n", ns, "route", "add", other_hosts[k] + "/32", "dev", tun, "src",
                   hosts[k % hosts.size()]});
    }
  }
  if (links.path != Path::b) return;
  // A packet from a path-B address travels on path B even to a path-A address, so both
  // directions of a connection take the same path (the reply goes to the 198.19 address).
  const std::string table = std::to_string(kPathBRouteTable);
  for (const auto& other : topology_.sites) {
    if (&other == &site) continue;
    for (const auto& host : other.hosts) {
      run_checked({"ip", "-n", ns, "route", "add", host + "/32", "dev", tun, "table", table});
    }
  }
  run_checked({"ip", "-n", ns, "rule", "add", "from", "198.19.0.0/16", "lookup", table});
}

void Emulator::start_forwarders(PathLinks& links) {
  const auto& sites = topology_.sites;
  std::vector<Route> routes;
  for (std::uint32_t s = 0; s < sites.size(); ++s) {
    for (const auto& host : sites[s].hosts_on(links.path)) routes.push_back({ipv4(host), s});
    // Path B also carries packets from a path-B source to a path-A address (attach_path).
    if (links.path == Path::b) {
      for (const auto& host : sites[s].hosts) routes.push_back({ipv4(host), s});
    }
  }
  const LinkProfile& link = topology_.profile(links.path);
  const auto line_bytes = delay_line_bytes(link);
  links.counters.assign(sites.size(), {});
  for (std::uint32_t from = 0; from < sites.size(); ++from) {
    std::vector<Direction> directions;
    links.counters[from].resize(sites.size());
    for (std::uint32_t to = 0; to < sites.size(); ++to) {
      if (to == from) continue;
      Direction d;
      d.destination_site = to;
      d.destination_fd = links.tuns[to]->fd();
      d.profile = link;
      d.seed = direction_seed(links.path, from, to);
      d.delay_line_bytes = line_bytes;
      d.counters = std::make_shared<DirectionCounters>();
      links.counters[from][to] = d.counters;
      directions.push_back(std::move(d));
    }
    forwarders_.push_back(std::make_unique<Forwarder>(forwarder_name(links.path, from),
                                                      links.tuns[from]->fd(), routes,
                                                      std::move(directions), links.control));
  }
}

void Emulator::up() {
  if (is_up()) return;
  sweep_stale_netns();
  if (int removed = delete_netns_with_prefix(topology_.prefix); removed > 0) {
    log()->info("removed {} leftover namespace(s) with prefix {}", removed, topology_.prefix);
  }
  try {
    for (std::size_t i = 0; i < topology_.sites.size(); ++i) configure_site(i);
    for (auto& links : paths_) start_forwarders(links);
    for (auto& forwarder : forwarders_) forwarder->start();
  } catch (...) {
    down();
    throw;
  }
  started_ns_ = steady_ns();
  if (topology_.path_b) {
    log()->info("up: {} sites ({}*), path a: {}; path b: {}", topology_.sites.size(),
                topology_.prefix, topology_.link.describe(), topology_.path_b->describe());
  } else {
    log()->info("up: {} sites ({}*), {}", topology_.sites.size(), topology_.prefix,
                topology_.link.describe());
  }
}

void Emulator::down() {
  for (auto& forwarder : forwarders_) forwarder->stop();
  forwarders_.clear();
  for (auto& links : paths_) links.tuns.clear();
  for (const auto& ns : created_) delete_netns(ns);
  created_.clear();
}

void Emulator::set_link_down(bool down) {
  bool changed = false;
  for (auto& links : paths_) changed |= links.control->down.exchange(down) != down;
  if (changed) log()->info("link {}", down ? "down" : "up");
}

bool Emulator::link_down() const {
  return std::all_of(paths_.begin(), paths_.end(), [](const PathLinks& links) {
    return links.control->down.load(std::memory_order_relaxed);
  });
}

void Emulator::set_path_down(Path path, bool down) {
  if (links(path).control->down.exchange(down) != down) {
    log()->info("path {} {}", to_string(path), down ? "down" : "up");
  }
}

bool Emulator::path_down(Path path) const {
  return links(path).control->down.load(std::memory_order_relaxed);
}

void Emulator::set_path_loss(Path path, double probability) {
  if (!(probability >= 0 && probability < 1)) {
    throw std::invalid_argument(fmt::format("path {} loss {} is not a probability in [0, 1)",
                                            to_string(path), probability));
  }
  if (links(path).control->random_loss.exchange(probability) != probability) {
    log()->info("path {} random loss {:g}%", to_string(path), probability * 100);
  }
}

double Emulator::path_loss(Path path) const {
  return links(path).control->random_loss.load(std::memory_order_relaxed);
}

EmulatorStats Emulator::stats() const {
  EmulatorStats stats;
  stats.t = static_cast<double>(steady_ns() - started_ns_) / 1e9;
  const auto& sites = topology_.sites;
  for (const auto& links : paths_) {
    PathStats path{links.path, links.control->down.load(), links.control->random_loss.load(), 0};
    const auto& counters = links.counters;
    for (std::size_t from = 0; from < counters.size(); ++from) {
      const auto kernel =
          links.tuns.size() > from ? links.tuns[from]->kernel_stats() : TunKernelStats{};
      for (std::size_t to = 0; to < counters[from].size(); ++to) {
        const auto& c = counters[from][to];
        if (!c) continue;
        DirectionStats d;
        d.from = sites[from].name;
        d.to = sites[to].name;
        d.path = links.path;
        d.packets_in = c->packets_in.load();
        d.bytes_in = c->bytes_in.load();
        d.packets_forwarded = c->packets_forwarded.load();
        d.bytes_forwarded = c->bytes_forwarded.load();
        d.emulated_loss_drops = c->emulated_loss_drops.load();
        d.queue_drops = c->queue_drops.load();
        d.overload_drops = c->overload_drops.load();
        d.outage_drops = c->outage_drops.load();
        // The TUN queue is per source site, not per destination: charge it to every direction
        // out of the site (with two sites there is only one).
        d.kernel_drops = kernel.tx_dropped;
        d.late_packets = c->late_packets.load();
        d.max_late_us = c->max_late_us.load();
        d.peak_delay_line_bytes = c->peak_delay_line_bytes.load();
        path.outage_drops += d.outage_drops;
        stats.directions.push_back(std::move(d));
      }
    }
    stats.paths.push_back(path);
  }
  for (const auto& forwarder : forwarders_) stats.unroutable += forwarder->unroutable();
  stats.link_down = link_down();
  return stats;
}

nlohmann::ordered_json to_json(const EmulatorStats& stats) {
  nlohmann::ordered_json directions = nlohmann::ordered_json::array();
  for (const auto& d : stats.directions) {
    directions.push_back({
        {"from", d.from},
        {"to", d.to},
        {"path", to_string(d.path)},
        {"packets_in", d.packets_in},
        {"bytes_in", d.bytes_in},
        {"packets_forwarded", d.packets_forwarded},
        {"bytes_forwarded", d.bytes_forwarded},
        {"emulated_loss_drops", d.emulated_loss_drops},
        {"queue_drops", d.queue_drops},
        {"overload_drops", d.overload_drops},
        {"outage_drops", d.outage_drops},
        {"kernel_drops", d.kernel_drops},
        {"late_packets", d.late_packets},
        {"max_late_us", d.max_late_us},
        {"peak_delay_line_bytes", d.peak_delay_line_bytes},
    });
  }
  nlohmann::ordered_json paths = nlohmann::ordered_json::array();
  for (const auto& p : stats.paths) {
    paths.push_back({
        {"path", to_string(p.path)},
        {"down", p.down},
        {"loss", p.random_loss},
        {"outage_drops", p.outage_drops},
    });
  }
  return {
      {"type", "linkemu"},
      {"t", std::round(stats.t * 1000) / 1000},
      {"overloaded", stats.overloaded()},
      {"unroutable", stats.unroutable},
      {"link_down", stats.link_down},
      {"paths", std::move(paths)},
      {"directions", std::move(directions)},
  };
}

nlohmann::ordered_json Emulator::stats_json() const {
  return to_json(stats());
}

}  // namespace hdstream::linkemu
