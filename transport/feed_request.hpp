// Every transport policy, decided once: a feed request (what the operator asked for one feed)
// becomes the options its transport runs with. The chunk size (srt: one packet), mtcp's
// sub-connection count and srt's stripes, the latency budget each transport chooses when none is
// given, the send queue's depth, TCP_NOTSENT_LOWAT, congestion control and pacing are decided here
// and nowhere else; the transports refuse options this function did not plan.
//   FeedRequest request{.transport = TransportKind::mtcp, .destination = to, .feed = feed};
//   SenderOptions options = sender_options(request);   // throws FeedRequestError
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/clock.hpp"
#include "common/endpoint.hpp"
#include "protocol/auth.hpp"
#include "protocol/handshake.hpp"
#include "transport/transport.hpp"

namespace hdstream {

using namespace std::chrono_literals;

// mtcp's sub-connections when the request names none.
inline constexpr std::size_t kDefaultMtcpConnections = 4;

struct FeedRequest {
  TransportKind transport = TransportKind::tcp;
  Endpoint destination;  // srt: the feed's port is destination.port + stream_id
  // Two-path protection: the feed goes in full to `destination` (leg A) and here (leg B).
  std::optional<Endpoint> destination_b;
  // Local addresses each path sends from (presets bind_a, bind_b); empty: the kernel's choice.
  std::string source;
  std::string source_b;
  std::uint16_t stream_id = 0;
  FeedDescriptor feed;
  // Unpaced (bench): every frame has exactly this many bytes and goes out as fast as the
  // transport takes it. 0: a live feed, paced at its frame rate.
  std::size_t unpaced_frame_bytes = 0;
  bool probe = false;                     // a `check` capacity probe (HELLO flag)
  std::uint32_t chunk_bytes = 64 * 1024;  // tcp and mtcp; srt carries one packet per chunk
  // mtcp sub-connections (0: kDefaultMtcpConnections); srt stripes (0 or 1: one connection)
  std::size_t connections = 0;
  std::chrono::nanoseconds expected_rtt = 1ms;
  // How far a frame may fall behind real time. Unless `latency_given`, mtcp and srt choose
  // max(latency, N x RTT) for their start-up and retransmissions (latency_budget()).
  std::chrono::nanoseconds latency = 120ms;
  bool latency_given = false;
  std::string congestion_control = "auto";  // --cc; auto: by expected RTT
  double pacing_factor = 0;                 // SO_MAX_PACING_RATE = factor x rate; 0: the cc paces
  std::chrono::nanoseconds connect_patience = 10s;
  std::chrono::nanoseconds reconnect_patience = kForever;
  SrtSettings srt{};                // passphrase and key length; the latency is chosen here
  std::optional<PresharedKey> key;  // tcp and mtcp: answers the receiver's challenge
};

// A request no receiver would accept (a frame too large, chunks too small for it, a latency
// beyond the receiver's limit): one line naming the option to fix.
class FeedRequestError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// The latency budget a transport runs a feed with: `latency` as given; else mtcp takes
// max(latency, 10 x RTT) (K TCP start-ups and a re-sent chunk take several RTTs) and srt
// max(latency, 4 x RTT) (SRT's own rule of thumb for retransmission), both at most
// kMaxLatencyBudgetMs.
std::chrono::nanoseconds latency_budget(TransportKind transport, std::chrono::nanoseconds latency,
                                        bool latency_given, std::chrono::nanoseconds expected_rtt);

// Throws FeedRequestError. With a second path: leg A's options (leg_options has both).
SenderOptions sender_options(const FeedRequest& request);

// The options of each leg: one, or two for a protected feed (destination_b), the same feed
// announced as leg 0 and leg 1 of one random feed id. Throws FeedRequestError.
std::vector<SenderOptions> leg_options(const FeedRequest& request);

}  // namespace hdstream
