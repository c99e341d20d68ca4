// Per-stream counters written by the data path: relaxed atomics, one writer per field at a time,
// read by the snapshot timer. Cumulative values only; rates are computed from snapshots.
//   counters.bytes.fetch_add(n, std::memory_order_relaxed);
#pragma once

#include <atomic>
#include <cstdint>
#include <string_view>

namespace hdstream {

enum class StreamState : std::uint8_t {
  invalid = 0,
  waiting = 1,     // not connected yet (sender connecting, receiver awaiting a session)
  running = 2,
  finished = 3,    // ended cleanly
  failed = 4,      // gave up: connection refused by the peer or lost for good
};

std::string_view to_string(StreamState state);

struct StreamCounters {
  std::atomic<std::uint64_t> bytes{0};            // payload bytes of frames sent / received
  std::atomic<std::uint64_t> frames{0};           // frames sent / received whole and verified
  std::atomic<std::uint64_t> drops{0};            // frames missing, incomplete or late
  std::atomic<std::uint64_t> checksum_errors{0};  // chunks or frames failing verification
  std::atomic<std::uint64_t> retransmits{0};      // TCP_INFO total_retrans (or transport's)
  std::atomic<double> jitter_ms{0};               // RFC 3550 inter-arrival jitter
  std::atomic<double> rtt_ms{0};                  // smoothed RTT from the transport
  std::atomic<std::uint64_t> planned_bps{0};      // nominal feed rate, for the verdict
  std::atomic<std::int64_t> first_frame_ns{0};    // wall clock of first / last frame (0: none)
  std::atomic<std::int64_t> last_frame_ns{0};
  std::atomic<StreamState> state{StreamState::waiting};
  // Receiver: smoothed frame latency, arrival minus the sender's timestamp (same clock on one
  // host; NTP/PTP-synchronised hosts otherwise). Smoothed like jitter (gain 1/16).
  std::atomic<double> latency_ms{0};
  std::atomic<std::uint32_t> latency_budget_ms{0};  // how long the receiver may hold a frame

  // Sender: the far end's own view of this feed, from its FEEDBACK reports (docs/feedback.md).
  struct FarEnd {
    std::atomic<std::int64_t> received_ns{0};  // our wall clock at the last report (0: none)
    std::atomic<std::uint64_t> bytes{0};
    std::atomic<std::uint64_t> frames{0};
    std::atomic<std::uint64_t> drops{0};
    std::atomic<std::uint64_t> checksum_errors{0};
    std::atomic<double> jitter_ms{0};
    std::atomic<double> fps{0};
    std::atomic<double> latency_ms{0};
    std::atomic<std::uint64_t> reports{0};
  } far_end;

  void add_frame(std::uint64_t frame_bytes, std::int64_t now_ns) {
    bytes.fetch_add(frame_bytes, std::memory_order_relaxed);
    frames.fetch_add(1, std::memory_order_relaxed);
    std::int64_t unset = 0;
    first_frame_ns.compare_exchange_strong(unset, now_ns, std::memory_order_relaxed);
    last_frame_ns.store(now_ns, std::memory_order_relaxed);
  }
};

}  // namespace hdstream
