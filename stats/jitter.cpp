#include "stats/jitter.hpp"

#include <cmath>

namespace hdstream {

void JitterEstimator::add(std::int64_t sent_ns, std::int64_t arrival_ns) {
  const std::int64_t transit_ns = arrival_ns - sent_ns;
  if (has_previous_) {
    const double d = std::abs(static_cast<double>(transit_ns - previous_transit_ns_));
    jitter_ns_ += (d - jitter_ns_) / 16.0;  // J(i) = J(i-1) + (|D(i-1,i)| - J(i-1)) / 16
  }
  previous_transit_ns_ = transit_ns;
  has_previous_ = true;
}

}  // namespace hdstream
