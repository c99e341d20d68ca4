// The packets of one link direction between arrival and delivery: a FIFO in one preallocated
// byte ring (variable-sized records, so 40-byte ACKs do not take 9000-byte slots). Single
// threaded: the forwarding thread of the direction pushes and pops. Nothing allocates after
// construction.
//   DelayLine line(64 << 20);
//   if (auto* p = line.push(due_ns, packet)) ...;   while (auto* f = line.front()) { ...;
//   line.pop(); }
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

namespace hdstream::linkemu {

class DelayLine {
 public:
  struct Packet {
    std::int64_t due_ns;
    std::uint32_t bytes;
    std::uint32_t destination;  // caller's tag (the site the packet goes to)
    std::byte* data() { return reinterpret_cast<std::byte*>(this + 1); }
  };

  explicit DelayLine(std::size_t capacity_bytes);

  // Copies the packet in; nullptr when the ring is full (the caller counts an overload drop).
  Packet* push(std::int64_t due_ns, std::uint32_t destination, std::span<const std::byte> packet);
  Packet* front() { return count_ ? at(head_) : nullptr; }
  void pop();

  std::size_t packets() const { return count_; }
  std::size_t bytes_used() const { return used_; }
  std::size_t capacity_bytes() const { return capacity_; }

 private:
  static constexpr std::uint32_t kWrapMarker = 0xffffffffu;
  static std::size_t record_bytes(std::size_t payload);
  Packet* at(std::size_t offset) { return reinterpret_cast<Packet*>(storage_.get() + offset); }

  std::size_t capacity_;
  std::unique_ptr<std::byte[]> storage_;
  std::size_t head_ = 0;  // oldest record
  std::size_t tail_ = 0;  // where the next record goes
  std::size_t used_ = 0;  // bytes between head and tail, wrap padding included
  std::size_t count_ = 0;
};

}  // namespace hdstream::linkemu
