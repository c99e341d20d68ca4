#include "tools/linkemu/delay_line.hpp"

#include <cstring>

namespace hdstream::linkemu {

DelayLine::DelayLine(std::size_t capacity_bytes)
    : capacity_((capacity_bytes + 7) & ~std::size_t{7}), storage_(new std::byte[capacity_]) {}

std::size_t DelayLine::record_bytes(std::size_t payload) {
  return (sizeof(Packet) + payload + 7) & ~std::size_t{7};  // keep every header aligned
}

DelayLine::Packet* DelayLine::push(std::int64_t due_ns, std::uint32_t destination,
                                   std::span<const std::byte> packet) {
  const std::size_t need = record_bytes(packet.size());
  std::size_t offset = tail_;
  std::size_t padding = 0;
  if (offset + need > capacity_) {  // does not fit before the end: wrap to the start
    padding = capacity_ - offset;
    offset = 0;
  }
  if (used_ + padding + need > capacity_) return nullptr;
  if (padding > 0) {
    // A wrap marker needs a header's room; the alignment guarantees at least 8 bytes, and a
    // shorter tail than a header is skipped by pop() via the capacity check.
    if (padding >= sizeof(Packet)) at(tail_)->bytes = kWrapMarker;
    used_ += padding;
  }
  Packet* record = at(offset);
  record->due_ns = due_ns;
  record->bytes = static_cast<std::uint32_t>(packet.size());
  record->destination = destination;
  std::memcpy(record->data(), packet.data(), packet.size());
  tail_ = offset + need;
  if (tail_ == capacity_) tail_ = 0;
  used_ += need;
  ++count_;
  return record;
}

void DelayLine::pop() {
  if (count_ == 0) return;
  const std::size_t need = record_bytes(at(head_)->bytes);
  head_ += need;
  used_ -= need;
  --count_;
  if (count_ == 0) {
    // Empty: restart at the front so the next packets do not need to wrap.
    head_ = tail_ = 0;
    used_ = 0;
    return;
  }
  // Skip the padding left where a record did not fit before the end.
  if (head_ + sizeof(Packet) > capacity_ || at(head_)->bytes == kWrapMarker) {
    used_ -= capacity_ - head_;
    head_ = 0;
  }
}

}  // namespace hdstream::linkemu
