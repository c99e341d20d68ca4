#include "tools/linkemu/link_model.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace hdstream::linkemu {
namespace {

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t rotl(std::uint64_t x, int k) {
  return (x << k) | (x >> (64 - k));
}

}  // namespace

std::uint64_t LinkProfile::bdp_bytes() const {
  const double rtt_s = 2.0 * std::chrono::duration<double>(one_way_delay).count();
  return static_cast<std::uint64_t>(static_cast<double>(rate_bps) / 8.0 * rtt_s);
}

std::string LinkProfile::describe() const {
  std::string text = fmt::format(
      "{:g} ms RTT, {}, MTU {}",
      2.0 * std::chrono::duration<double, std::milli>(one_way_delay).count(),
      rate_bps
          ? fmt::format("{:g} Mbps, queue {} B", static_cast<double>(rate_bps) / 1e6, queue_bytes)
          : std::string("unlimited rate"),
      mtu_bytes);
  if (jitter.count() > 0) {
    text += fmt::format(", jitter +-{:g} ms",
                        std::chrono::duration<double, std::milli>(jitter).count());
  }
  if (random_loss > 0) text += fmt::format(", loss {:g}%", random_loss * 100);
  if (burst.enabled()) {
    text += fmt::format(", burst loss p={:g} r={:g}", burst.p_enter_bad, burst.p_leave_bad);
  }
  return text;
}

LinkModel::LinkModel(const LinkProfile& profile, std::uint64_t seed) : profile_(profile) {
  if (profile_.rate_bps > 0) ns_per_byte_ = 8e9 / static_cast<double>(profile_.rate_bps);
  for (auto& word : rng_) word = splitmix64(seed);
}

double LinkModel::uniform() {
  // xoshiro256**: a few ns per draw, no allocation, reproducible from the seed.
  const std::uint64_t result = rotl(rng_[1] * 5, 7) * 9;
  const std::uint64_t t = rng_[1] << 17;
  rng_[2] ^= rng_[0];
  rng_[3] ^= rng_[1];
  rng_[1] ^= rng_[2];
  rng_[0] ^= rng_[3];
  rng_[2] ^= t;
  rng_[3] = rotl(rng_[3], 45);
  return static_cast<double>(result >> 11) * 0x1.0p-53;
}

bool LinkModel::lose() {
  bool lost = false;
  if (profile_.burst.enabled()) {
    const auto& b = profile_.burst;
    bad_state_ = bad_state_ ? uniform() >= b.p_leave_bad : uniform() < b.p_enter_bad;
    const double p = bad_state_ ? b.loss_in_bad : b.loss_in_good;
    lost = p > 0 && uniform() < p;
  }
  if (!lost && profile_.random_loss > 0) lost = uniform() < profile_.random_loss;
  return lost;
}

std::uint64_t LinkModel::backlog_bytes(std::int64_t now_ns) const {
  if (ns_per_byte_ == 0) return 0;
  const double waiting_ns = bottleneck_free_ns_ - static_cast<double>(now_ns);
  return waiting_ns > 0 ? static_cast<std::uint64_t>(waiting_ns / ns_per_byte_) : 0;
}

Verdict LinkModel::admit(std::int64_t now_ns, std::uint32_t bytes) {
  // Loss is decided on arrival (as netem does): a lost packet takes no queue space.
  if (lose()) return {Fate::lost, 0};
  const double now = static_cast<double>(now_ns);
  double departs_ns = now;
  if (ns_per_byte_ > 0) {
    // The queue is virtual: its occupancy is how far the bottleneck is booked ahead of now.
    if (backlog_bytes(now_ns) + bytes > profile_.queue_bytes) return {Fate::queue_full, 0};
    bottleneck_free_ns_ = std::max(bottleneck_free_ns_, now) + bytes * ns_per_byte_;
    departs_ns = bottleneck_free_ns_;
  }
  double delay_ns = static_cast<double>(profile_.one_way_delay.count());
  if (profile_.jitter.count() > 0) {
    delay_ns += (2 * uniform() - 1) * static_cast<double>(profile_.jitter.count());
    delay_ns = std::max(delay_ns, 0.0);
  }
  // Jitter must not reorder: a packet never leaves before the one ahead of it.
  const auto due = static_cast<std::int64_t>(std::llround(departs_ns + delay_ns));
  last_due_ns_ = std::max(last_due_ns_, due);
  return {Fate::forward, last_due_ns_};
}

}  // namespace hdstream::linkemu
