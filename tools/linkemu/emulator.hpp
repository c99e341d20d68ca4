// A running emulated WAN: one namespace per site with a TUN device per path (lemu0 for path A,
// lemu1 for path B if the topology has one), forwarding threads between them, TCP buffer limits
// raised inside so long fat paths work. Brings itself down (namespaces deleted, processes inside
// killed) when destroyed; bring-up first removes leftovers of the same prefix and of crashed runs.
//   Emulator wan(load_topology("tests/wan/sc99.toml"));  wan.up();
//   run({"ip", "netns", "exec", wan.netns("b"), "hdstream", "recv", ...});
//   wan.set_path_down(Path::a, true);  wan.set_path_loss(Path::b, 0.02);   // from any thread
//   nlohmann::json counters = wan.stats_json();   // wan.down() or the destructor tears down
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tools/linkemu/forwarder.hpp"
#include "tools/linkemu/topology.hpp"
#include "tools/linkemu/tun_device.hpp"

namespace hdstream::linkemu {

inline constexpr const char* kTunName = "lemu0";       // path A's device in every site
inline constexpr const char* kPathBTunName = "lemu1";  // path B's
// The routing table (in every site) that sends packets from a path-B source to a path-A
// address over path B: a socket bound to 198.19.x.y uses path B whatever it talks to.
inline constexpr int kPathBRouteTable = 19;
const char* tun_name(Path path);

struct DirectionStats {
  std::string from, to;
  Path path = Path::a;
  std::uint64_t packets_in = 0, bytes_in = 0, packets_forwarded = 0, bytes_forwarded = 0;
  std::uint64_t emulated_loss_drops = 0, queue_drops = 0;
  std::uint64_t overload_drops = 0;  // ours: delay line full or TUN write failed
  std::uint64_t outage_drops = 0;    // sent or in flight while the link was down
  std::uint64_t kernel_drops = 0;    // the source TUN's tx_dropped: we read too slowly
  std::uint64_t late_packets = 0, max_late_us = 0, peak_delay_line_bytes = 0;
};

struct PathStats {
  Path path = Path::invalid;
  bool down = false;
  double random_loss = 0;          // what the path loses now (set_path_loss or the profile)
  std::uint64_t outage_drops = 0;  // every direction's on this path
};

struct EmulatorStats {
  double t = 0;                            // seconds since up()
  std::vector<DirectionStats> directions;  // path A's, then path B's
  std::vector<PathStats> paths;            // a, then b
  std::uint64_t unroutable = 0;
  bool link_down = false;  // every path is down
  // True when the emulator itself lost or delayed packets: results are not the link's.
  bool overloaded() const;
};

class Emulator {
 public:
  explicit Emulator(Topology topology);
  ~Emulator();
  Emulator(const Emulator&) = delete;
  Emulator& operator=(const Emulator&) = delete;

  // Throws std::runtime_error with one line naming what failed; leaves nothing behind then.
  void up();
  void down();
  bool is_up() const { return !forwarders_.empty(); }

  const Topology& topology() const { return topology_; }
  const std::string& prefix() const { return topology_.prefix; }
  std::string netns(const std::string& site) const;
  const Site& site(const std::string& name) const;
  // The tcp_rmem / tcp_wmem maximum set inside every namespace.
  std::uint64_t tcp_buffer_max_bytes() const;

  // Takes the link down (every path, both directions, every site pair) or brings it back:
  // while down, every packet is dropped, including those already in flight (counted as
  // outage_drops). TCP sees no RST, only silence, as when a cable is pulled. Thread-safe, before
  // or after up(); takes effect on the forwarders' next packet.
  void set_link_down(bool down);
  bool link_down() const;  // every path is down

  // The same for one path, leaving the other alone. Throws std::invalid_argument for a path the
  // topology lacks.
  void set_path_down(Path path, bool down);
  bool path_down(Path path) const;
  // Replaces the path's random loss probability (both directions), in [0, 1), from its next
  // packet on; the profile's burst loss is unchanged. Thread-safe. Throws std::invalid_argument
  // for a path the topology lacks or a probability out of range.
  void set_path_loss(Path path, double probability);
  double path_loss(Path path) const;

  EmulatorStats stats() const;
  nlohmann::ordered_json stats_json() const;

 private:
  // One path's pieces: its TUN device in every site, the counters of every direction and the
  // control its forwarders read.
  struct PathLinks {
    Path path = Path::invalid;
    std::shared_ptr<LinkControl> control = std::make_shared<LinkControl>();
    std::vector<std::unique_ptr<TunDevice>> tuns;                           // [site]
    std::vector<std::vector<std::shared_ptr<DirectionCounters>>> counters;  // [from][to]
  };

  const PathLinks& links(Path path) const;  // throws std::invalid_argument if absent
  void configure_site(std::size_t index);
  void attach_path(std::size_t site_index, PathLinks& links);
  void start_forwarders(PathLinks& links);

  Topology topology_;
  std::vector<PathLinks> paths_;  // a, then b
  std::vector<std::unique_ptr<Forwarder>> forwarders_;
  std::vector<std::string> created_;
  std::int64_t started_ns_ = 0;
};

nlohmann::ordered_json to_json(const EmulatorStats& stats);

}  // namespace hdstream::linkemu
