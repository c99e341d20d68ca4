// Serves N feeds over SRT live mode, one UDP port per feed (listen port + stream id: libsrt
// serves a port with one receive thread). Each feed has its own thread around libsrt's
// blocking calls (all with 100 ms timeouts, so stop() is bounded), one per leg of a protected
// feed (the legs' sessions run at once, merged as on tcp by LegMerge); chunks are verified and
// reassembled as on tcp; packets SRT drops as too late show up as dropped frames. A feed
// striped over K SRT connections (HELLO connections = K) has stripe 0 here and stripes 1 .. K-1
// on ports of their own (SrtStripeGroup), all into the feed's one reassembler.
//   auto rx = std::make_shared<SrtReceiver>(options, stats, consumer);  rx->start();
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "transport/frame_memory.hpp"
#include "transport/leg_merge.hpp"
#include "transport/srt/srt_socket.hpp"
#include "transport/srt/srt_stream_listeners.hpp"
#include "transport/transport.hpp"

namespace hdstream {

class SrtReceiver : public ReceiverTransport, public std::enable_shared_from_this<SrtReceiver> {
 public:
  SrtReceiver(ReceiverOptions options, StatsRegistry& stats, FrameConsumer& consumer);
  ~SrtReceiver() override;

  void start() override;
  Endpoint local_endpoint() const override;  // stream 0's port
  void stop() override;

 private:
  // On the stream's feed thread for the leg the caller's stream id announced (`announced_leg`:
  // the HELLO must be that leg's), or a probe thread when it announced a capacity probe
  // (`announced_probe`: then the HELLO must be a probe's).
  bool run_session(std::uint16_t stream, std::uint8_t announced_leg, SrtSocket& socket,
                   bool announced_probe);
  bool stopped() const { return listeners_.stopped(); }
  // Why a striped HELLO on stream `stream`'s own port cannot be served; empty if it can.
  std::string striped_refusal(std::uint16_t stream, const Hello& hello) const;
  // The UDP ports of stripes 1 .. stripes-1 of `stream` (transport/srt/srt_stripes.hpp).
  std::vector<std::uint16_t> stripe_ports(std::uint16_t stream, std::size_t stripes) const;

  ReceiverOptions options_;
  SrtPlan socket_plan_;  // every listener's, the stripes' too
  LegMerge merge_;       // the feeds' consumer, merging the legs of protected feeds
  FrameMemory memory_;   // frame buffers of all sessions, within --max-memory
  // Capacity probes (`check`) reserve from a budget of their own, of the same size: a stranger's
  // probes never take memory a feed needs.
  FrameMemory probe_memory_;
  FrameMemory& memory_for(bool probe) { return probe ? probe_memory_ : memory_; }
  std::atomic<std::size_t> probes_running_{0};
  SrtStreamListeners listeners_;  // last: its threads are joined before the rest goes
};

}  // namespace hdstream
