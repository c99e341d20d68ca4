// Which mtcp sub-connection takes the next chunk: the usable one with the most room (least
// bytes waiting unsent, ours plus the kernel's), never one that is already full. Pure.
//   std::array<SubconnectionLoad, 4> loads = ...;
//   if (auto k = pick_subconnection(loads, 512 * 1024)) assign(chunk, *k);
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace hdstream {

struct SubconnectionLoad {
  bool usable = false;                    // connected and through its handshake
  std::uint64_t queued_bytes = 0;         // assigned to it, not yet written to its socket
  std::uint64_t kernel_unsent_bytes = 0;  // in its socket, not yet sent (SIOCOUTQNSD)

  std::uint64_t unsent_bytes() const { return queued_bytes + kernel_unsent_bytes; }
};

// The usable sub-connection with the fewest unsent bytes, provided that is below
// `room_bytes`; ties go to the lowest index. nullopt when every usable one is full (the chunk
// waits for one to drain) or none is usable (all reconnecting).
std::optional<std::size_t> pick_subconnection(std::span<const SubconnectionLoad> loads,
                                              std::uint64_t room_bytes);

// Frames an mtcp feed may have in flight (sent, not yet delivered): what the latency budget
// can hold back, plus a few being filled. The sender bounds its resend window by it and the
// receiver its reassembler, so a full window never makes the receiver give frames up.
std::size_t mtcp_window_frames(std::uint32_t latency_budget_ms, double frames_per_second);

// Bytes written to `fd` that the kernel has not sent yet; 0 if it cannot tell.
std::uint64_t kernel_unsent_bytes(int fd);

}  // namespace hdstream
