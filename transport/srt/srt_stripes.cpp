#include "transport/srt/srt_stripes.hpp"

#include <algorithm>
#include <limits>

namespace hdstream {

std::optional<std::uint16_t> srt_stripe_port(std::uint16_t base_port, std::size_t streams,
                                             std::uint16_t stream, std::size_t stripe) {
  const std::uint64_t port = std::uint64_t{base_port} + stream + std::uint64_t{streams} * stripe;
  if (port > std::numeric_limits<std::uint16_t>::max()) return std::nullopt;
  return static_cast<std::uint16_t>(port);
}

std::uint64_t srt_stripe_rate_bps(std::uint64_t feed_rate_bps, std::size_t stripes) {
  if (stripes <= 1) return feed_rate_bps;
  return std::min(feed_rate_bps, feed_rate_bps / stripes * 3 / 2);
}

std::size_t SrtStripeScheduler::pick(std::span<SrtSocket> stripes, std::size_t bytes) {
  if (until_refresh_ == 0) {
    until_refresh_ = kRefreshChunks;
    for (std::size_t i = 0; i < stripes.size() && i < loads_.size(); ++i) {
      loads_[i].usable = stripes[i].is_open();
      loads_[i].kernel_unsent_bytes = stripes[i].unacknowledged_bytes();
      loads_[i].queued_bytes = 0;
    }
  }
  --until_refresh_;
  const auto best = pick_subconnection(loads_, std::numeric_limits<std::uint64_t>::max());
  const std::size_t stripe = best.value_or(0);
  loads_[stripe].queued_bytes += bytes;
  return stripe;
}

std::size_t SrtStripeScheduler::pick(std::span<const std::uint64_t> send_buffer_bytes,
                                     std::size_t bytes) {
  for (std::size_t i = 0; i < send_buffer_bytes.size() && i < loads_.size(); ++i) {
    loads_[i] = SubconnectionLoad{true, 0, send_buffer_bytes[i]};
  }
  const std::size_t stripe =
      pick_subconnection(loads_, std::numeric_limits<std::uint64_t>::max()).value_or(0);
  loads_[stripe].queued_bytes += bytes;
  return stripe;
}

void add_srt_stats(SrtStats& total, const SrtStats& stripe) {
  total.rtt_ms = std::max(total.rtt_ms, stripe.rtt_ms);
  total.sent_packets += stripe.sent_packets;
  total.sent_retransmits += stripe.sent_retransmits;
  total.received_retransmits += stripe.received_retransmits;
  total.send_lost += stripe.send_lost;
  total.receive_lost += stripe.receive_lost;
  total.send_dropped += stripe.send_dropped;
  total.receive_dropped += stripe.receive_dropped;
  total.belated += stripe.belated;
  total.send_buffer_ms = std::max(total.send_buffer_ms, stripe.send_buffer_ms);
  total.receive_buffer_ms = std::max(total.receive_buffer_ms, stripe.receive_buffer_ms);
  total.fec_sent += stripe.fec_sent;
  total.fec_received += stripe.fec_received;
  total.fec_recovered += stripe.fec_recovered;
  total.fec_uncorrectable += stripe.fec_uncorrectable;
}

}  // namespace hdstream
