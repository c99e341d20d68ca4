// A running emulated WAN: one namespace and TUN device per site, forwarding threads between
// them, TCP buffer limits raised inside so long fat paths work. Brings itself down (namespaces
// deleted, processes inside killed) when destroyed; bring-up first removes leftovers of the same
// prefix and of crashed runs.
//   Emulator wan(load_topology("tests/wan/sc99.toml"));  wan.up();
//   run({"ip", "netns", "exec", wan.netns("b"), "hdstream", "recv", ...});
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

inline constexpr const char* kTunName = "lemu0";

struct DirectionStats {
  std::string from, to;
  std::uint64_t packets_in = 0, bytes_in = 0, packets_forwarded = 0, bytes_forwarded = 0;
  std::uint64_t emulated_loss_drops = 0, queue_drops = 0;
  std::uint64_t overload_drops = 0;  // ours: delay line full or TUN write failed
  std::uint64_t outage_drops = 0;    // sent or in flight while the link was down
  std::uint64_t kernel_drops = 0;    // the source TUN's tx_dropped: we read too slowly
  std::uint64_t late_packets = 0, max_late_us = 0, peak_delay_line_bytes = 0;
};

struct EmulatorStats {
  double t = 0;  // seconds since up()
  std::vector<DirectionStats> directions;
  std::uint64_t unroutable = 0;
  bool link_down = false;
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

  // Takes the link down (both directions, every site pair) or brings it back: while down,
  // every packet is dropped, including those already in flight (counted as outage_drops).
  // TCP sees no RST, only silence, as when a cable is pulled. Thread-safe; takes effect on the
  // forwarders' next packet.
  void set_link_down(bool down);
  bool link_down() const { return link_down_->load(std::memory_order_relaxed); }

  EmulatorStats stats() const;
  nlohmann::ordered_json stats_json() const;

 private:
  void configure_site(std::size_t index);
  void start_forwarders();

  Topology topology_;
  std::vector<std::unique_ptr<TunDevice>> tuns_;
  std::vector<std::vector<std::shared_ptr<DirectionCounters>>> counters_;  // [from][to]
  std::vector<std::unique_ptr<Forwarder>> forwarders_;
  std::vector<std::string> created_;
  std::int64_t started_ns_ = 0;
  std::shared_ptr<std::atomic<bool>> link_down_ = std::make_shared<std::atomic<bool>>(false);
};

nlohmann::ordered_json to_json(const EmulatorStats& stats);

}  // namespace hdstream::linkemu
