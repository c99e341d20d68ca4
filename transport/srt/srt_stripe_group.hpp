// The receiving side of stripes 1 .. K-1 of one striped srt feed, for the session its stripe 0
// opened on the stream's port: a listener per stripe on that stripe's own UDP port (so its own
// libsrt receive thread), opened for this session only, and a thread per stripe that accepts
// the one caller of this session's stripe (its HELLO must name the same stream, session, stripe
// count, stripe index and feed as stripe 0's; anything else is refused with one rate-limited log
// line; callers are heard side by side, so a silent stranger cannot keep the stripe out) and
// hands every message to `on_message`, which feeds the feed's one Reassembler. A stripe that
// breaks, or never connects within the handshake timeout, breaks the whole session (the sender
// re-opens it). Every wait is bounded (100 ms), so stop() is too.
//   SrtStripeGroup group(plan, listen, ports, stream, hello, 5s, on_message);   // binds
//   ack.stripe_ports = group.ports();  group.start();  ...  group.wait_ended(deadline, stopped);
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "common/endpoint.hpp"
#include "common/log.hpp"
#include "common/log_rate_limit.hpp"
#include "protocol/handshake.hpp"
#include "protocol/wire.hpp"
#include "stats/counters.hpp"
#include "transport/srt/srt_socket.hpp"

namespace hdstream {

class SrtStripeGroup {
 public:
  // Called on a stripe's thread for each CHUNK it reads (never for END); false closes the
  // session (a chunk above what the HELLO allows).
  using OnChunk =
      std::function<bool(const MessageHeader& header, std::span<const std::byte> payload)>;

  // Binds a listener per stripe 1 .. K-1 on `ports` (in stripe order) at `listen`'s host, with
  // `plan`'s passphrase and FEC; throws SrtError naming a port that cannot be opened.
  SrtStripeGroup(const SrtPlan& plan, const Endpoint& listen, std::vector<std::uint16_t> ports,
                 std::uint16_t stream, const Hello& hello,
                 std::chrono::nanoseconds handshake_timeout, StreamCounters& counters,
                 OnChunk on_chunk);
  SrtStripeGroup(const SrtStripeGroup&) = delete;
  SrtStripeGroup& operator=(const SrtStripeGroup&) = delete;
  ~SrtStripeGroup();  // stops and joins

  const std::vector<std::uint16_t>& ports() const { return ports_; }
  void start();
  void stop() { stopped_ = true; }

  // A stripe broke, never connected, or was closed for a protocol error.
  bool broken() const { return broken_; }
  // Waits until every stripe 1 .. K-1 has read its END, one broke, `stopped` is set or the
  // deadline passes; true in the first case only.
  bool wait_ended(std::chrono::steady_clock::time_point deadline, const std::atomic<bool>& stopped);
  // The stripes' libsrt statistics, summed (add_srt_stats), as last sampled by their threads.
  SrtStats stats() const;

 private:
  struct Stripe {
    std::size_t index = 0;
    SrtSocket listener;
    SrtStats stats;  // guarded by mutex_
    std::atomic<bool> ended{false};
    std::thread thread;
  };
  void serve(Stripe& stripe);
  // The caller of this stripe, through its HELLO; nullopt when none came in time.
  std::optional<SrtSocket> admit(Stripe& stripe);
  // Checks an accepted caller's HELLO against the session; empty when it is this stripe.
  std::string check(const Stripe& stripe, std::uint16_t header_stream, const Hello& hello) const;
  // Logs (rate-limited) and sends the refusal; false when it could not be sent.
  bool refuse(SrtSocket& caller, AckStatus status, const std::string& reason);

  // Callers heard at once on a stripe's port, how long each may take to send its HELLO, and how
  // long a refused one has to read its refusal and close.
  static constexpr std::size_t kMaxPendingCallers = 8;
  static constexpr std::chrono::seconds kHelloWait{2};
  static constexpr std::chrono::milliseconds kRefusalDrain{500};

  std::vector<std::uint16_t> ports_;
  std::uint16_t stream_;
  Hello hello_;
  std::chrono::nanoseconds handshake_timeout_;
  StreamCounters& counters_;
  OnChunk on_chunk_;
  std::vector<std::unique_ptr<Stripe>> stripes_;
  std::atomic<bool> stopped_{false};
  std::atomic<bool> broken_{false};
  LogRateLimit refusals_{10, std::chrono::seconds(10), logger("srt"),
                         "callers refused on a stripe's port"};
  mutable std::mutex mutex_;  // guards each stripe's stats; with `changed_`, ended and broken
  std::condition_variable changed_;
};

}  // namespace hdstream
