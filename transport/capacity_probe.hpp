// A `check` capacity probe as a receiver sees it (HELLO flag kHelloProbe): verified and measured
// like a feed, but in counters of its own. It never takes the stream's slot, never reaches the
// consumer (sinks, decoders, the run's end) and never shows in the receiver's stats; what it
// measured goes back to the sender in FEEDBACK, as a feed's does. One per probing session.
//   CapacityProbe probe(logger("tcp"), stream, peer);
//   probe.started(hello, "over tcp");  ...  probe.frame(*frame);  ...  probe.ended(clean);
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "protocol/frame.hpp"
#include "protocol/handshake.hpp"
#include "stats/counters.hpp"
#include "stats/jitter.hpp"
#include "transport/reassembly_publisher.hpp"
#include "transport/transport.hpp"

namespace spdlog {
class logger;
}

namespace hdstream {

inline bool is_capacity_probe(const Hello& hello) {
  return (hello.flags & kHelloProbe) != 0;
}

// How many probes a receiver runs at once besides its feeds: one per stream it serves, what one
// `hdstream check` sends. Each also reserves its frames from the receiver's --max-memory.
inline std::size_t max_capacity_probes(std::size_t streams) {
  return streams;
}
// The HELLO_ACK reason when they are all taken.
std::string capacity_probes_busy(std::size_t max);

class CapacityProbe {
 public:
  CapacityProbe(std::shared_ptr<spdlog::logger> log, std::uint16_t stream, std::string peer);

  // The probe's own counters: the reassembly publisher, TCP_INFO / SRT stats and the FEEDBACK
  // meter use them where a feed's session uses the stream's.
  StreamCounters& counters() { return counters_; }

  void started(const Hello& hello, std::string_view how);  // one line: who, what rate
  void frame(const Frame& frame);                          // a whole, verified frame
  void ended(bool clean);                                  // one line with what was measured

 private:
  std::shared_ptr<spdlog::logger> log_;
  std::uint16_t stream_;
  std::string peer_;
  StreamCounters counters_;
  JitterEstimator jitter_;
};

// Every receiver's delivery step: hands each frame the reassembler has ready at `now_ns` to the
// probe (a probe session: measured apart) or else the consumer, then publishes what the
// reassembler counted into `counters`.
void deliver_ready_frames(Reassembler& reassembler, std::int64_t now_ns, CapacityProbe* probe,
                          FrameConsumer& consumer, std::uint16_t stream,
                          ReassemblyPublisher& publisher, StreamCounters& counters);

}  // namespace hdstream
