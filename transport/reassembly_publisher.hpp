// Publishes what a Reassembler counted (frames dropped, chunks failing XXH3, late frames, loss
// runs, duplicate and out-of-order chunks) into a stream's counters as deltas since the last
// call (the longest loss run as a maximum: a stream's runs over all its sessions), with a bounded
// number of warning lines. One per receiving session, shared by the tcp, mtcp and srt receivers.
//   ReassemblyPublisher publisher(logger("mtcp"), stream, "given up (beyond the budget)");
//   publisher.publish(reassembler.counters(), counters);   // after every pop()
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "protocol/reassembler.hpp"
#include "stats/counters.hpp"

namespace spdlog {
class logger;
}

namespace hdstream {

class ReassemblyPublisher {
 public:
  // `drop_reason` completes "stream N: K frame(s) ..." in a warning per call that saw drops;
  // empty: drops are counted, not logged (the sender's verdict reports them).
  ReassemblyPublisher(std::shared_ptr<spdlog::logger> log, std::uint16_t stream,
                      std::string drop_reason = {});

  void publish(const ReassemblerCounters& now, StreamCounters& counters);

 private:
  std::shared_ptr<spdlog::logger> log_;
  std::uint16_t stream_;
  std::string drop_reason_;
  ReassemblerCounters published_;
  std::uint64_t checksum_warnings_ = 0;
};

}  // namespace hdstream
