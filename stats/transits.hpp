// Per-frame transit times (receiver's arrival of a frame's last byte minus the sender's frame
// timestamp), in a bounded buffer: a receiver keeps the frames it delivered since its last
// FEEDBACK report, a sender what the far end reported since the last take.
//   TransitBuffer buffer(256);  buffer.push({seq, transit_us});  auto samples = buffer.take();
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace hdstream {

struct TransitSample {
  std::uint32_t frame_seq = 0;  // low 32 bits of the frame's sequence number
  std::int32_t transit_us = 0;

  bool operator==(const TransitSample&) const = default;
};

// Receiver: what one FEEDBACK report can carry (protocol's kMaxFeedbackTransits).
inline constexpr std::size_t kReceiverTransitCapacity = 256;
// Sender: what waits for StatsRegistry::take_transits() per stream (~4.5 min at 29.97 fps).
inline constexpr std::size_t kSenderTransitCapacity = 8192;

// Thread safe; one short lock per push (one per frame), no allocation after the first push.
class TransitBuffer {
 public:
  explicit TransitBuffer(std::size_t capacity) : capacity_(capacity) {}

  // When full, the oldest sample makes room and is counted in dropped().
  void push(TransitSample sample);
  // Every sample held, oldest first; the buffer is empty afterwards.
  std::vector<TransitSample> take();
  std::uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }

 private:
  std::mutex mutex_;
  std::size_t capacity_;
  std::vector<TransitSample> ring_;  // capacity_ slots, allocated at the first push
  std::size_t oldest_ = 0;
  std::size_t size_ = 0;
  std::atomic<std::uint64_t> dropped_{0};
};

}  // namespace hdstream
