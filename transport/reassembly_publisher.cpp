#include "transport/reassembly_publisher.hpp"

#include <spdlog/spdlog.h>

namespace hdstream {
namespace {
constexpr std::uint64_t kMaxChecksumWarnings = 10;  // per session: corruption must not flood
}

ReassemblyPublisher::ReassemblyPublisher(std::shared_ptr<spdlog::logger> log, std::uint16_t stream,
                                         std::string drop_reason)
    : log_(std::move(log)), stream_(stream), drop_reason_(std::move(drop_reason)) {}

void ReassemblyPublisher::publish(const ReassemblerCounters& now, StreamCounters& counters) {
  const std::uint64_t dropped = now.frames_dropped - published_.frames_dropped;
  const std::uint64_t corrupted = now.checksum_errors - published_.checksum_errors;
  counters.drops.fetch_add(dropped, std::memory_order_relaxed);
  counters.checksum_errors.fetch_add(corrupted, std::memory_order_relaxed);
  // After drops, which bound them (a FEEDBACK report carrying more would be refused).
  counters.late_frames.fetch_add(now.late_frames - published_.late_frames,
                                 std::memory_order_relaxed);
  counters.loss_events.fetch_add(now.loss_events - published_.loss_events,
                                 std::memory_order_relaxed);
  if (now.longest_loss_run > counters.longest_loss_run.load(std::memory_order_relaxed)) {
    counters.longest_loss_run.store(now.longest_loss_run, std::memory_order_relaxed);
  }
  counters.duplicate_chunks.fetch_add(now.duplicate_chunks - published_.duplicate_chunks,
                                      std::memory_order_relaxed);
  counters.out_of_order_chunks.fetch_add(now.out_of_order_chunks - published_.out_of_order_chunks,
                                         std::memory_order_relaxed);
  if (corrupted > 0 && checksum_warnings_++ < kMaxChecksumWarnings) {
    log_->warn("stream {}: chunk failed XXH3 verification ({} so far)", stream_,
               now.checksum_errors);
  }
  if (dropped > 0 && !drop_reason_.empty()) {
    log_->warn("stream {}: {} frame(s) {}", stream_, dropped, drop_reason_);
  }
  published_ = now;
}

}  // namespace hdstream
