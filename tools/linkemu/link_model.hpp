// One direction of an emulated WAN link, as pure arithmetic on timestamps (no I/O, no clock):
// drop-tail bottleneck queue, serialization at the bottleneck rate, random and Gilbert-Elliott
// burst loss, one-way delay and jitter that never reorders.
//   LinkModel link(profile, /*seed=*/1);
//   auto v = link.admit(now_ns, packet_bytes);  if (v.fate == Fate::forward) deliver_at(v.due_ns);
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace hdstream::linkemu {

// Gilbert-Elliott two-state loss: each packet first moves good->bad with p_enter_bad, or
// bad->good with p_leave_bad, then is lost with the loss probability of the state it is in.
// Mean burst length is 1 / p_leave_bad packets.
struct BurstLoss {
  double p_enter_bad = 0;
  double p_leave_bad = 1;
  double loss_in_bad = 1;
  double loss_in_good = 0;
  bool enabled() const { return p_enter_bad > 0; }
};

struct LinkProfile {
  std::chrono::nanoseconds one_way_delay{0};  // half the emulated RTT
  std::chrono::nanoseconds jitter{0};         // each packet's delay varies by +-jitter
  std::uint64_t rate_bps = 0;                 // bottleneck rate; 0: unlimited
  std::uint64_t queue_bytes = 0;              // drop-tail queue ahead of the bottleneck
  double random_loss = 0;                     // independent per-packet loss probability
  BurstLoss burst;
  std::uint32_t mtu_bytes = 1500;

  // Bandwidth-delay product of the round trip (rate x 2 x one-way delay), in bytes.
  std::uint64_t bdp_bytes() const;
  // "97 ms RTT, 1 Gbps, queue 12.1 MB, loss 0.1%, MTU 4470" for logs and reports.
  std::string describe() const;
};

enum class Fate : std::uint8_t { invalid = 0, forward, lost, queue_full };

struct Verdict {
  Fate fate = Fate::invalid;
  std::int64_t due_ns = 0;  // when the packet leaves the far end of the link (forward only)
};

class LinkModel {
 public:
  LinkModel(const LinkProfile& profile, std::uint64_t seed);

  // A packet of `bytes` (IP datagram) arrives at the near end at `now_ns`. Calls must come in
  // non-decreasing `now_ns` order; the returned due times never decrease (no reordering).
  Verdict admit(std::int64_t now_ns, std::uint32_t bytes);

  // Bytes waiting for or in the bottleneck at `now_ns`.
  std::uint64_t backlog_bytes(std::int64_t now_ns) const;

  // Replaces the random loss probability from the next packet on (a run-time change; the burst
  // model keeps its state). The caller keeps it in [0, 1).
  void set_random_loss(double probability) { profile_.random_loss = probability; }
  double random_loss() const { return profile_.random_loss; }

 private:
  double uniform();  // [0, 1)
  bool lose();

  LinkProfile profile_;
  double ns_per_byte_ = 0;         // serialization time at the bottleneck
  double bottleneck_free_ns_ = 0;  // when the bottleneck finishes what it holds
  std::int64_t last_due_ns_ = 0;
  bool bad_state_ = false;
  std::uint64_t rng_[4] = {};
};

}  // namespace hdstream::linkemu
