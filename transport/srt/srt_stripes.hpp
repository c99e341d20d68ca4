// One srt feed striped over K SRT connections (`send --transport srt --conns K`): where each
// stripe's UDP port is, which stripe takes the next chunk, and libsrt's figures of K stripes as
// one. Stripe 0 is the stream's own port (port + stream id, as one connection); stripe k >= 1
// of stream s on a receiver serving N streams listens on port + s + N x k, so every stripe has a
// UDP port, and so a libsrt receive thread, of its own (docs/PROTOCOL.md#srt-stripes).
//   SrtStripeScheduler scheduler(stripes.size());
//   SrtSocket& next = stripes[scheduler.pick(stripes, chunk_bytes)];
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "transport/mtcp/mtcp_scheduler.hpp"
#include "transport/srt/srt_socket.hpp"

namespace hdstream {

// The UDP port of stripe `stripe` (0 .. K-1) of `stream` on a receiver whose stream 0 listens
// on `base_port` and which serves `streams` streams; nullopt past port 65535.
std::optional<std::uint16_t> srt_stripe_port(std::uint16_t base_port, std::size_t streams,
                                             std::uint16_t stream, std::size_t stripe);

// The rate each stripe's socket plans for (SRTO_INPUTBW, its stream id, the receiver's
// buffers): an even share with half again for an uneven split, never above the feed's rate.
std::uint64_t srt_stripe_rate_bps(std::uint64_t feed_rate_bps, std::size_t stripes);

// The mtcp scheduler's rule on SRT sockets: each chunk goes to the stripe with the fewest bytes
// in libsrt's send buffer (srt_getsndbuffer: not yet sent or not yet acknowledged), plus what
// was given to it since that was read. libsrt's figure is read every kRefreshChunks chunks, not
// per packet (it takes the socket's lock); a stripe whose peer stops acknowledging fills up and
// is passed over, not round-robin.
class SrtStripeScheduler {
 public:
  static constexpr std::size_t kRefreshChunks = 32;
  explicit SrtStripeScheduler(std::size_t stripes) : loads_(stripes) {}

  std::size_t pick(std::span<SrtSocket> stripes, std::size_t bytes);
  // The same rule from given occupancies (tests): the least loaded, ties to the lowest index.
  std::size_t pick(std::span<const std::uint64_t> send_buffer_bytes, std::size_t bytes);

 private:
  std::vector<SubconnectionLoad> loads_;
  std::size_t until_refresh_ = 0;
};

// K stripes' libsrt statistics as one connection's: counts summed, the RTT and buffer the
// largest (the feed waits for its slowest stripe).
void add_srt_stats(SrtStats& total, const SrtStats& stripe);

}  // namespace hdstream
