// The bound every receiver (tcp, mtcp, srt) puts on the memory peers can make it hold for frames
// (docs/SECURITY.md, "Memory"): one MemoryBudget for all its sessions (--max-memory), the frame
// pool that recycles buffers within it, a reservation per accepted feed covering everything its
// reassembler may hold, and rate-limited log lines for what it refuses.
//   FrameMemory memory(options.max_memory_bytes, options.streams, 16, "tcp");
//   auto held = memory.admit(config, /*readers=*/1, peer, stream, reason);  // nullopt: refuse
//   Reassembler reassembler(stream, config, memory.pool());
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "common/log_rate_limit.hpp"
#include "protocol/frame.hpp"
#include "protocol/memory_budget.hpp"
#include "protocol/reassembler.hpp"

namespace spdlog {
class logger;
}

namespace hdstream {

// Each stream a receiver serves may hold this much for frames in flight unless --max-memory
// says otherwise. It is what the largest preset format needs on the most demanding transport
// with room to spare: v210-1080p60 (5.5 MB frames) over mtcp with a 400 ms latency budget holds
// 28 frames + 4 sub-connection reads = 177 MB; DNxHD 220 over mtcp on the longest preset path
// (pasadena, 264 ms RTT: 2.64 s budget) 88 frames = 161 MB; any preset format over tcp or srt,
// 9 frames, at most 50 MB. A stream that needs more (a longer budget, bigger frames) is
// refused with the figure to give --max-memory.
inline constexpr std::uint64_t kDefaultMemoryPerStreamBytes = std::uint64_t{256} << 20;

// --max-memory's default: kDefaultMemoryPerStreamBytes for each stream served.
std::uint64_t default_max_memory_bytes(std::size_t streams);

class FrameMemory {
 public:
  // `max_memory_bytes` 0: default_max_memory_bytes(streams). `idle_frames`: how many recycled
  // buffers the pool may keep. `component` names the logger ("tcp", "mtcp", "srt").
  FrameMemory(std::uint64_t max_memory_bytes, std::size_t streams, std::size_t idle_frames,
              const std::string& component);

  FramePool& pool() { return pool_; }
  const MemoryBudget& budget() const { return *budget_; }

  // Reserves what a reassembler with `config` can hold with `readers` payload reads in progress
  // (memory_bytes()). When the stream's share or what is left cannot cover it: nullopt,
  // `refusal` says why for the HELLO_ACK, and one rate-limited line names the peer and the limit.
  // A session that is one of `legs` legs of a protected feed may hold 1 / legs of the share, so
  // the legs of one stream together hold no more than a feed of one leg could.
  std::optional<MemoryReservation> admit(const ReassemblerConfig& config, std::size_t readers,
                                         const std::string& peer, std::uint16_t stream,
                                         std::string& refusal, std::size_t legs = 1);

  // A chunk announced a frame above what its HELLO allows (ChunkResult::too_large): one
  // rate-limited line; the caller then closes the session.
  void frame_too_large(const std::string& peer, std::uint16_t stream, const MessageHeader& header,
                       const ReassemblerConfig& config);

 private:
  std::shared_ptr<MemoryBudget> budget_;
  FramePool pool_;
  std::shared_ptr<spdlog::logger> log_;
  LogRateLimit refusals_;  // refused HELLOs
  LogRateLimit closures_;  // sessions closed for a frame above their bound
};

}  // namespace hdstream
