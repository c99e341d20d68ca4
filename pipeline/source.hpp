// Where a sender's frames come from. Implementations: synthetic (here); media sources plug in
// beside it.
#pragma once

#include <cstdint>

#include "protocol/frame.hpp"

namespace hdstream {

class FrameSource {
 public:
  virtual ~FrameSource() = default;
  // The frame with sequence number `seq`, ready to send (ready_ns is set by the caller).
  virtual FramePtr next_frame(std::uint64_t seq) = 0;
};

}  // namespace hdstream
