// RFC 3550 section 6.4.1 inter-arrival jitter, on nanosecond clocks.
//   JitterEstimator j;  j.add(frame.ready_ns, frame.arrival_ns);  double ms = j.jitter_ms();
#pragma once

#include <cstdint>

namespace hdstream {

class JitterEstimator {
 public:
  // One packet (here: one frame) sent at `sent_ns` on the sender's clock and received at
  // `arrival_ns` on ours. The clocks need not agree: only differences of transit times count.
  void add(std::int64_t sent_ns, std::int64_t arrival_ns);

  double jitter_ms() const { return jitter_ns_ / 1e6; }

 private:
  bool has_previous_ = false;
  std::int64_t previous_transit_ns_ = 0;
  double jitter_ns_ = 0;
};

}  // namespace hdstream
