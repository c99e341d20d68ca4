#include "transport/frame_memory.hpp"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "common/log.hpp"

namespace hdstream {
namespace {

// Lines a flood of hostile peers can provoke: 5 per 10 s per receiver, then a count.
constexpr std::size_t kLinesPerPeriod = 5;
constexpr auto kLinePeriod = std::chrono::seconds(10);

double mib(std::uint64_t bytes) {
  return static_cast<double>(bytes) / (1 << 20);
}

}  // namespace

std::uint64_t default_max_memory_bytes(std::size_t streams) {
  return kDefaultMemoryPerStreamBytes * std::max<std::size_t>(1, streams);
}

FrameMemory::FrameMemory(std::uint64_t max_memory_bytes, std::size_t streams,
                         std::size_t idle_frames, const std::string& component)
    : budget_(std::make_shared<MemoryBudget>(
          max_memory_bytes > 0 ? max_memory_bytes : default_max_memory_bytes(streams), streams)),
      pool_(idle_frames, budget_),
      log_(logger(component)),
      refusals_(kLinesPerPeriod, kLinePeriod, log_, "refused HELLOs"),
      closures_(kLinesPerPeriod, kLinePeriod, log_, "sessions closed for a frame too large") {}

std::optional<MemoryReservation> FrameMemory::admit(const ReassemblerConfig& config,
                                                    std::size_t readers, const std::string& peer,
                                                    std::uint16_t stream, std::string& refusal,
                                                    std::size_t legs) {
  const std::uint64_t need = memory_bytes(config, readers);
  const MemoryBudget& budget = *budget_;
  const std::uint64_t share = budget.session_limit_bytes() / std::max<std::size_t>(1, legs);
  if (need <= share) {
    if (auto held = budget_->reserve(need)) return held;
  }
  if (need > share) {
    refusal = fmt::format(
        "frames in flight would need {:.1f} MiB; a {} may hold {:.1f} MiB here "
        "(receiver --max-memory {:.1f} MiB over {} streams)",
        mib(need), legs > 1 ? "leg of a stream" : "stream", mib(share), mib(budget.limit_bytes()),
        budget.sessions());
  } else {
    refusal = fmt::format(
        "frames in flight would need {:.1f} MiB; {:.1f} MiB of the receiver's --max-memory "
        "{:.1f} MiB are free",
        mib(need), mib(budget.unreserved_bytes()), mib(budget.limit_bytes()));
  }
  if (auto held_back = refusals_.admit()) {
    log_->warn("refused feed from {} (stream {}): memory budget: {}{}", peer, stream, refusal,
               held_back_note(*held_back));
  }
  return std::nullopt;
}

void FrameMemory::frame_too_large(const std::string& peer, std::uint16_t stream,
                                  const MessageHeader& header, const ReassemblerConfig& config) {
  if (auto held_back = closures_.admit()) {
    log_->warn(
        "stream {} from {}: a frame of {} bytes is above the {} its HELLO allows; closing the "
        "session{}",
        stream, peer, header.frame_bytes, config.max_frame_bytes, held_back_note(*held_back));
  }
}

}  // namespace hdstream
