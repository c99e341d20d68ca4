// The listening half every SRT receiver shares: one listener per stream on consecutive UDP
// ports, each served by its own thread that accepts callers until stop(). A port has one feed
// lane per leg of a protected feed it serves (`lanes`), each with its own thread: a lane's feed
// sessions run one after another on it (a caller arriving meanwhile waits its turn, as in a
// backlog of one), beside the other lane's, so leg A and leg B of one feed run at once. A caller
// goes to the lane its stream id announces (x-hdstream-leg; lane 0 if none). A caller whose
// stream id announces a `check` capacity probe runs at once on a thread of its own, beside the
// feeds, when a probe session is given. Every wait is bounded (100 ms), so stop() is too.
//   SrtStreamListeners listeners;
//   listeners.start(plan, options.listen, 5, 2,
//                   [&](std::uint16_t stream, std::uint8_t leg, SrtSocket& s) { ... });
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

#include "common/endpoint.hpp"
#include "common/log.hpp"
#include "common/log_rate_limit.hpp"
#include "transport/srt/srt_socket.hpp"

namespace hdstream {

class SrtStreamListeners {
 public:
  // A caller's session: its stream, the leg its stream id announced (its lane; 0 if none, or if
  // the listener has no such lane) and its socket.
  using Session = std::function<void(std::uint16_t stream, std::uint8_t leg, SrtSocket& socket)>;

  SrtStreamListeners() = default;
  SrtStreamListeners(const SrtStreamListeners&) = delete;
  SrtStreamListeners& operator=(const SrtStreamListeners&) = delete;
  ~SrtStreamListeners();  // stops and joins the threads

  // Binds every stream's port (throws std::system_error naming a port that is taken), then
  // starts the threads. `session` runs on one of stream i's `lanes` feed threads (at least one;
  // SrtReceiver has one per leg) for each caller it accepts; `probe_session` (if any) on a probe
  // thread for each caller announcing a capacity probe.
  void start(const SrtPlan& plan, const Endpoint& listen, std::size_t streams, std::size_t lanes,
             Session session, Session probe_session = {});
  void stop() { stopped_ = true; }
  const std::atomic<bool>& stopped() const { return stopped_; }

  // Stream 0's address: where a sender connects (stream i is on port + i).
  Endpoint local_endpoint(const Endpoint& listen) const;
  std::uint16_t base_port() const { return base_port_; }

 private:
  void serve(std::uint16_t stream, SrtSocket listener, std::size_t lanes, const Session& session,
             const Session& probe_session);

  std::vector<std::thread> threads_;
  std::uint16_t base_port_ = 0;
  std::atomic<bool> stopped_{false};
  LogRateLimit turned_away_{5, std::chrono::seconds(10), logger("srt"), "callers closed unserved"};
};

// Probe threads a port runs at once: a bound on threads, whatever callers announce (the
// receiver refuses probes beyond its own limit with a HELLO_ACK before this is reached).
inline constexpr std::size_t kMaxProbeThreadsPerPort = 8;

}  // namespace hdstream
