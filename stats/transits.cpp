#include "stats/transits.hpp"

namespace hdstream {

void TransitBuffer::push(TransitSample sample) {
  std::lock_guard lock(mutex_);
  if (capacity_ == 0) return;
  if (ring_.empty()) ring_.resize(capacity_);
  if (size_ == capacity_) {
    ring_[oldest_] = sample;
    oldest_ = (oldest_ + 1) % capacity_;
    dropped_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  ring_[(oldest_ + size_) % capacity_] = sample;
  ++size_;
}

std::vector<TransitSample> TransitBuffer::take() {
  std::lock_guard lock(mutex_);
  std::vector<TransitSample> out;
  out.reserve(size_);
  for (std::size_t i = 0; i < size_; ++i) out.push_back(ring_[(oldest_ + i) % capacity_]);
  oldest_ = 0;
  size_ = 0;
  return out;
}

}  // namespace hdstream
