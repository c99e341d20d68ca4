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
