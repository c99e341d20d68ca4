// The listening half every SRT receiver shares: one listener per stream on consecutive UDP
// ports, each served by its own thread that accepts a caller, runs the receiver's session on
// it, and accepts the next, until stop(). Every wait is bounded (100 ms), so stop() is too.
//   SrtStreamListeners listeners;
//   listeners.start(plan, options.listen, 5, [&](std::uint16_t stream, SrtSocket& s) { ... });
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

#include "transport/endpoint.hpp"
#include "transport/srt_socket.hpp"

namespace hdstream {

class SrtStreamListeners {
 public:
  using Session = std::function<void(std::uint16_t stream, SrtSocket& socket)>;

  SrtStreamListeners() = default;
  SrtStreamListeners(const SrtStreamListeners&) = delete;
  SrtStreamListeners& operator=(const SrtStreamListeners&) = delete;
  ~SrtStreamListeners();  // stops and joins the threads

  // Binds every stream's port (throws std::system_error naming a port that is taken), then
  // starts the threads. `session` runs on stream i's thread for each caller it accepts.
  void start(const SrtPlan& plan, const Endpoint& listen, std::size_t streams, Session session);
  void stop() { stopped_ = true; }
  const std::atomic<bool>& stopped() const { return stopped_; }

  // Stream 0's address: where a sender connects (stream i is on port + i).
  Endpoint local_endpoint(const Endpoint& listen) const;
  std::uint16_t base_port() const { return base_port_; }

 private:
  void serve(std::uint16_t stream, SrtSocket listener, const Session& session);

  std::vector<std::thread> threads_;
  std::uint16_t base_port_ = 0;
  std::atomic<bool> stopped_{false};
};

}  // namespace hdstream
