// Serves N feeds over SRT live mode, one UDP port per feed (listen port + stream id: libsrt
// serves a port with one receive thread). Each feed has its own thread around libsrt's
// blocking calls (all with 100 ms timeouts, so stop() is bounded), one per leg of a protected
// feed (the legs' sessions run at once, merged as on tcp by LegMerge); chunks are verified and
// reassembled as on tcp; packets SRT drops as too late show up as dropped frames. A feed
// striped over K SRT connections (HELLO connections = K) has stripe 0 here and stripes 1 .. K-1
// on ports of their own (SrtStripeGroup), all into the feed's one reassembler.
//   auto rx = std::make_shared<SrtReceiver>(options, stats, consumer);  rx->start();
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/log_rate_limit.hpp"
#include "transport/admission.hpp"
#include "transport/srt/srt_link.hpp"
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
  class Session;  // srt_receive_session.hpp
  friend class Session;

  bool stopped() const { return listeners_.stopped(); }
  // Why a striped HELLO on stream `stream`'s own port cannot be served; empty if it can.
  std::string striped_refusal(std::uint16_t stream, const Hello& hello) const;
  // The UDP ports of stripes 1 .. stripes-1 of `stream` (transport/srt/srt_stripes.hpp).
  std::vector<std::uint16_t> stripe_ports(std::uint16_t stream, std::size_t stripes) const;
  // The lines any caller can provoke before it is admitted, held back in a flood (without a
  // passphrase: with one, a refusal is always logged).
  void log_refusal(const std::string& peer, std::uint16_t stream, bool probe, AckStatus status,
                   const std::string& reason);
  void log_closing(const std::string& peer, std::uint16_t stream, const std::string& why);

  ReceiverOptions options_;
  SrtPlan socket_plan_;  // every listener's, the stripes' too
  Admission admission_;  // what a HELLO may claim and reserve; the merge of protected feeds
  LogRateLimit stranger_lines_{10, std::chrono::seconds(10), srt_log(),
                               "lines about callers that were not admitted"};
  SrtStreamListeners listeners_;  // last: its threads are joined before the rest goes
};

}  // namespace hdstream
