// The memory a receiver lets its feeds hold for frames, shared by all its sessions. A session
// reserves, when its HELLO is accepted, everything it could ever hold (Reassembler's
// memory_bytes()); a chunk then never allocates beyond what was promised, and no session can
// take another's room: each may reserve at most an equal share, limit / sessions. Thread safe.
//   auto budget = std::make_shared<MemoryBudget>(512u << 20, 2);   // 512 MiB, 2 streams
//   if (auto held = budget->reserve(need)) run(std::move(*held)); else refuse();
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>

namespace hdstream {

class MemoryBudget;

// Bytes reserved from a MemoryBudget, given back when destroyed or reset. Move-only.
class MemoryReservation {
 public:
  MemoryReservation() = default;
  MemoryReservation(MemoryReservation&& other) noexcept;
  MemoryReservation& operator=(MemoryReservation&& other) noexcept;
  MemoryReservation(const MemoryReservation&) = delete;
  MemoryReservation& operator=(const MemoryReservation&) = delete;
  ~MemoryReservation() { reset(); }

  void reset();
  std::uint64_t bytes() const { return bytes_; }

 private:
  friend class MemoryBudget;
  MemoryReservation(std::shared_ptr<MemoryBudget> budget, std::uint64_t bytes)
      : budget_(std::move(budget)), bytes_(bytes) {}

  std::shared_ptr<MemoryBudget> budget_;
  std::uint64_t bytes_ = 0;
};

class MemoryBudget : public std::enable_shared_from_this<MemoryBudget> {
 public:
  // `sessions`: how many sessions may run at once (a receiver's stream count); 0 counts as 1.
  MemoryBudget(std::uint64_t limit_bytes, std::size_t sessions);

  // nullopt, reserving nothing, when `bytes` exceeds one session's share or what is left.
  // The budget must be owned by a shared_ptr (the reservation keeps it alive).
  std::optional<MemoryReservation> reserve(std::uint64_t bytes);

  std::uint64_t limit_bytes() const { return limit_bytes_; }
  std::uint64_t session_limit_bytes() const { return session_limit_bytes_; }
  std::size_t sessions() const { return sessions_; }
  std::uint64_t reserved_bytes() const { return reserved_bytes_.load(std::memory_order_relaxed); }
  // What no session has reserved: room a frame pool may keep idle buffers in.
  std::uint64_t unreserved_bytes() const { return limit_bytes_ - reserved_bytes(); }

 private:
  friend class MemoryReservation;
  void give_back(std::uint64_t bytes);

  std::uint64_t limit_bytes_;
  std::size_t sessions_;
  std::uint64_t session_limit_bytes_;
  std::atomic<std::uint64_t> reserved_bytes_{0};
};

}  // namespace hdstream
