#include "protocol/memory_budget.hpp"

#include <algorithm>
#include <utility>

namespace hdstream {

MemoryReservation::MemoryReservation(MemoryReservation&& other) noexcept
    : budget_(std::move(other.budget_)), bytes_(std::exchange(other.bytes_, 0)) {}

MemoryReservation& MemoryReservation::operator=(MemoryReservation&& other) noexcept {
  if (this != &other) {
    reset();
    budget_ = std::move(other.budget_);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void MemoryReservation::reset() {
  if (budget_) budget_->give_back(bytes_);
  budget_.reset();
  bytes_ = 0;
}

MemoryBudget::MemoryBudget(std::uint64_t limit_bytes, std::size_t sessions)
    : limit_bytes_(limit_bytes),
      sessions_(std::max<std::size_t>(1, sessions)),
      session_limit_bytes_(limit_bytes / sessions_) {}

std::optional<MemoryReservation> MemoryBudget::reserve(std::uint64_t bytes) {
  if (bytes > session_limit_bytes_) return std::nullopt;
  std::uint64_t reserved = reserved_bytes_.load(std::memory_order_relaxed);
  do {
    // reserved <= limit always, so this cannot wrap.
    if (bytes > limit_bytes_ - reserved) return std::nullopt;
  } while (!reserved_bytes_.compare_exchange_weak(reserved, reserved + bytes,
                                                  std::memory_order_relaxed));
  return MemoryReservation(shared_from_this(), bytes);
}

void MemoryBudget::give_back(std::uint64_t bytes) {
  reserved_bytes_.fetch_sub(bytes, std::memory_order_relaxed);
}

}  // namespace hdstream
