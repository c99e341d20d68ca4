// The one place hdstream touches libsrt: an owning socket with our error type, live-mode
// settings sized from the feed, timeouts on every blocking call (so stop() is bounded), and
// stats read back. libsrt error codes never leave this file pair.
//   SrtSocket s = SrtSocket::caller(plan);  s.connect(Endpoint{"127.0.0.1", 9000});
//   if (s.send(message) == SrtIo::ok) ...;  SrtStats stats = s.stats();
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/endpoint.hpp"
#include "transport/srt/srt_fec.hpp"

namespace hdstream {

// libsrt failures, converted once: what() is one line naming the operation and libsrt's reason.
class SrtError : public std::runtime_error {
 public:
  SrtError(const std::string& what, int srt_code, int reject_reason = 0)
      : std::runtime_error(what), srt_code_(srt_code), reject_reason_(reject_reason) {}
  int srt_code() const { return srt_code_; }
  int reject_reason() const { return reject_reason_; }  // SRT_REJ_* when a connect was refused
  bool wrong_passphrase() const;
  bool filter_conflict() const;  // the peer's packet filter (--srt-fec) does not agree with ours

 private:
  int srt_code_;
  int reject_reason_;
};

// Live-mode parameters of one feed's socket.
struct SrtPlan {
  std::uint64_t rate_bps = 0;  // feed rate: INPUTBW, MAXBW, buffer sizing
  std::chrono::nanoseconds latency = std::chrono::milliseconds(120);
  std::chrono::nanoseconds rtt = std::chrono::milliseconds(1);
  std::string passphrase;  // empty: no encryption
  std::uint8_t key_length_bytes = 16;
  int payload_bytes = 1456;  // SRTO_PAYLOADSIZE: one message per packet
  bool probe = false;        // a caller's stream id announces a `check` capacity probe
  std::uint8_t leg = 0;      // a caller's stream id announces this leg of a protected feed
  // SRTO_PACKETFILTER (--srt-fec); srt_plan() then leaves its header room in payload_bytes.
  // A listener without one takes a caller's filter; with one, it must agree with the caller's.
  std::optional<SrtFec> fec;
  // The most a connection's buffers may hold, whatever a caller announces (its plan may come
  // from a stranger): a receiver gives its stream's share of --max-memory.
  std::uint64_t max_buffered_bytes = 1'000'000'000;
};
inline constexpr int kSrtMaxPayloadBytes = 1456;  // SRT_LIVE_MAX_PLSIZE
inline constexpr int kSrtTsPayloadBytes = 1316;   // 7 x 188: what MPEG-TS tools expect

// Buffers sized from rate x (RTT + latency), with headroom: SRTO_FC in packets, SRTO_RCVBUF
// and the UDP buffers in bytes.
struct SrtBufferSizes {
  int flow_window_packets = 0;
  int receive_buffer_bytes = 0;
  int udp_buffer_bytes = 0;
};
SrtBufferSizes plan_srt_buffers(const SrtPlan& plan);

enum class SrtIo : std::uint8_t { ok = 1, timeout, closed };

struct SrtStats {
  double rtt_ms = 0;
  std::uint64_t sent_packets = 0;          // data packets we sent, re-sent ones included
  std::uint64_t sent_retransmits = 0;      // packets we re-sent
  std::uint64_t received_retransmits = 0;  // re-sent packets we received
  std::uint64_t send_lost = 0;             // reported lost by the peer
  std::uint64_t receive_lost = 0;          // detected lost here
  std::uint64_t send_dropped = 0;          // too late to send
  std::uint64_t receive_dropped = 0;       // too late to play
  std::uint64_t belated = 0;               // arrived after their play time
  double send_buffer_ms = 0;
  double receive_buffer_ms = 0;
  // The packet filter's (FEC's), zero without one.
  std::uint64_t fec_sent = 0;           // FEC packets we sent (pktSndFilterExtraTotal)
  std::uint64_t fec_received = 0;       // FEC packets we received (pktRcvFilterExtraTotal)
  std::uint64_t fec_recovered = 0;      // lost packets FEC rebuilt (pktRcvFilterSupplyTotal)
  std::uint64_t fec_uncorrectable = 0;  // lost packets FEC could not (pktRcvFilterLossTotal)
};

// Callers libsrt holds for a listener before refusing more ("backlog exceeded"). The listener's
// owner accepts at once and applies its own policy (SrtStreamListeners: one feed caller waiting,
// a bounded number of probes), so this only covers callers that arrive together, e.g. `check`'s
// reachability connect followed at once by its probe, before the accepting thread has run.
inline constexpr int kSrtListenBacklog = 16;

class SrtSocket {
 public:
  // A live-mode socket configured from `plan`, not yet connected. With a rate, its stream id
  // tells the listener the rate, latency and RTT (transport/srt/srt_stream_id.hpp).
  static SrtSocket caller(const SrtPlan& plan);
  // A listener bound to `local` (port as given), libsrt's backlog kSrtListenBacklog. An hdstream
  // caller's connection gets receive buffers sized for the rate, latency and RTT it announces
  // (latency: the larger of its and `plan`'s, as SRT plays at); any other caller's, those of
  // `plan`.
  static SrtSocket listener(const SrtPlan& plan, const Endpoint& local);

  SrtSocket() = default;
  SrtSocket(SrtSocket&& other) noexcept
      : socket_(std::exchange(other.socket_, -1)),
        accept_epoll_(std::exchange(other.accept_epoll_, -1)),
        listener_plan_(std::move(other.listener_plan_)) {}
  SrtSocket& operator=(SrtSocket&& other) noexcept;
  SrtSocket(const SrtSocket&) = delete;
  SrtSocket& operator=(const SrtSocket&) = delete;
  ~SrtSocket() { close(); }

  bool is_open() const { return socket_ >= 0; }
  // Blocks at most SRTO_CONNTIMEO (1 s). Throws SrtError (wrong_passphrase() tells a refusal
  // for a mismatched passphrase).
  void connect(const Endpoint& remote);
  // Sends from `source` (an IP address of this host, any port): a path's own interface, before
  // connect(). Throws SrtError "cannot send from SOURCE: why".
  void bind_source(const std::string& source);
  // Waits up to `timeout` for a caller; nullopt on timeout.
  std::optional<SrtSocket> accept(std::chrono::milliseconds timeout);
  // One message; blocks at most the send/receive timeout (100 ms).
  SrtIo send(std::span<const std::byte> message);
  // One message into `buffer`; its size in `received`.
  SrtIo receive(std::span<std::byte> buffer, std::size_t& received);
  SrtStats stats();
  // Bytes sent but not yet acknowledged by the peer (live mode has no linger: wait for this to
  // reach 0 before close() so the last packets are not discarded).
  std::size_t unacknowledged_bytes() const;
  // The latency the peer applies to what we send (SRTO_PEERLATENCY, negotiated at connect):
  // an acknowledged packet is played out, and safe to close on, only this much later.
  std::chrono::milliseconds peer_latency() const;
  std::uint16_t local_port() const;
  std::string peer() const;
  // An accepted socket's caller announces a capacity probe in its stream id
  // (transport/srt/srt_stream_id.hpp).
  bool announces_probe() const;
  // The leg of a protected feed an accepted socket's caller announces in its stream id: 0 when
  // it announces none (or an id the listener does not trust).
  std::uint8_t announced_leg() const;
  // The packet filter in force (SRTO_PACKETFILTER): once connected, what both ends agreed on
  // (keys neither end gave are libsrt's defaults, not spelled out); empty: none.
  std::string packet_filter() const;
  // The largest message this socket sends (SRTO_PAYLOADSIZE): 4 bytes less once a filter that
  // the peer asked for is in force.
  int payload_bytes() const;
  // SRTO_FC, SRTO_RCVBUF and SRTO_UDP_RCVBUF as libsrt holds them (RCVBUF in whole packets).
  SrtBufferSizes buffer_sizes() const;
  // false: receive() returns SrtIo::timeout at once when no message is waiting.
  void set_receive_blocking(bool blocking);
  void close();

 private:
  explicit SrtSocket(int socket) : socket_(socket) {}
  int socket_ = -1;
  // A listener's epoll, subscribed before srt_listen and kept for the listener's life: libsrt
  // raises a listener's read event only as a caller arrives, never for one already queued when
  // an epoll is added, so an epoll made per accept() could miss a caller for good.
  int accept_epoll_ = -1;
  // A listener's own plan, read by libsrt's listen callback on its receive thread; it lives
  // until close(), after which libsrt calls no more.
  std::unique_ptr<SrtPlan> listener_plan_;
};

// srt_startup once per process and libsrt's own log lines routed to our "srt" logger (a
// refused caller, e.g. a wrong passphrase, is logged on the listener's side as a warning).
void ensure_srt_started();

// One listener per stream on consecutive UDP ports from `listen.port` (0: the first port is
// ephemeral and the rest follow it). Throws std::system_error naming the port that is taken.
std::vector<SrtSocket> listen_per_stream(const SrtPlan& plan, Endpoint listen, std::size_t streams);

}  // namespace hdstream
