// Moves the packets one site sends into the link: a thread reads them from the site's TUN,
// passes each through the LinkModel of the (source, destination) pair, holds it in that pair's
// DelayLine and writes it into the destination site's TUN when due. One thread per sending site
// (per direction for two sites) and path; no allocation per packet; several packets per wakeup.
//   Forwarder f("0", tun_fd, routes, directions, control);  f.start();  ...  f.stop();
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tools/linkemu/delay_line.hpp"
#include "tools/linkemu/link_model.hpp"

namespace hdstream::linkemu {

// Counters of one direction (source site -> destination site). Written by the forwarding
// thread only, read by anyone.
struct DirectionCounters {
  std::atomic<std::uint64_t> packets_in{0};
  std::atomic<std::uint64_t> bytes_in{0};
  std::atomic<std::uint64_t> packets_forwarded{0};
  std::atomic<std::uint64_t> bytes_forwarded{0};
  std::atomic<std::uint64_t> emulated_loss_drops{0};  // random and burst loss
  std::atomic<std::uint64_t> queue_drops{0};          // drop-tail at the bottleneck
  std::atomic<std::uint64_t> overload_drops{0};       // delay line full or TUN write failed
  std::atomic<std::uint64_t> outage_drops{0};         // sent or in flight while the link was down
  std::atomic<std::uint64_t> late_packets{0};         // delivered > kLateThreshold after due
  std::atomic<std::uint64_t> max_late_us{0};
  std::atomic<std::uint64_t> peak_delay_line_bytes{0};
};

// Run-time state of one path, shared by the forwarders of that path: written from any thread
// (Emulator::set_path_down, set_path_loss), read by the forwarding threads on every packet.
struct LinkControl {
  std::atomic<bool> down{false};       // the cable is pulled: every packet is an outage drop
  std::atomic<double> random_loss{0};  // replaces the profile's random loss while running
};

// Delivered this much after its due time, a packet counts as late: the emulator, not the
// emulated link, set its delay.
inline constexpr std::int64_t kLateThresholdNs = 1'000'000;

struct Route {
  std::uint32_t address = 0;  // IPv4, host byte order
  std::uint32_t site = 0;
};

struct Direction {
  std::uint32_t destination_site = 0;
  int destination_fd = -1;
  LinkProfile profile;
  std::uint64_t seed = 1;
  std::size_t delay_line_bytes = 0;
  std::shared_ptr<DirectionCounters> counters;
};

class Forwarder {
 public:
  // `name` tags the thread and its log lines ("0": site 0's sender; "b0": the same on path B).
  // `directions` holds one entry per destination site; `routes` maps addresses to sites.
  // If `control` is given: while `control->down` is true every packet read, and every packet
  // that falls due, is dropped and counted as an outage drop (the cable is pulled); and every
  // packet is lost with probability `control->random_loss` instead of the profile's.
  Forwarder(std::string name, int source_fd, std::vector<Route> routes,
            std::vector<Direction> directions,
            std::shared_ptr<const LinkControl> control = nullptr);
  ~Forwarder();
  Forwarder(const Forwarder&) = delete;
  Forwarder& operator=(const Forwarder&) = delete;

  void start();
  // Returns once the thread has exited; packets still in the delay lines are discarded.
  void stop();

  // Packets that went to no known site (IPv6, stray addresses): dropped.
  std::uint64_t unroutable() const { return unroutable_.load(std::memory_order_relaxed); }

 private:
  struct Lane {
    Direction direction;
    LinkModel model;
    DelayLine line;
  };

  void run();
  bool link_down() const { return control_ && control_->down.load(std::memory_order_relaxed); }
  void read_burst();
  std::int64_t flush(std::int64_t now_ns);  // returns the next due time, or 0 if all empty
  Lane* lane_for(const std::byte* packet, std::size_t bytes);

  std::string name_;
  int source_fd_;
  int stop_fd_ = -1;  // eventfd
  std::vector<Route> routes_;
  std::shared_ptr<const LinkControl> control_;
  std::vector<std::unique_ptr<Lane>> lanes_;
  std::unique_ptr<std::byte[]> scratch_;
  std::atomic<std::uint64_t> unroutable_{0};
  std::thread thread_;
};

}  // namespace hdstream::linkemu
