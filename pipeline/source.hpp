// Where a sender's frames come from. Implementations: synthetic, file (pre-encoded, passed
// through), GStreamer capture (encoded to DNxHD or sent raw) — see media_sources.hpp.
//   source.start();  FramePtr f = source.next_frame(seq);  // null: nothing ready this tick
#pragma once

#include <cstdint>

#include "protocol/frame.hpp"

namespace hdstream {

class FrameSource {
 public:
  virtual ~FrameSource() = default;
  // Begins producing (capture threads start here, not at construction).
  virtual void start() {}
  // The frame with sequence number `seq`, ready to send (ready_ns is set by the caller), or
  // null when none is ready this frame period (a live capture or encoder running late): the
  // pacer counts that as a dropped frame.
  virtual FramePtr next_frame(std::uint64_t seq) = 0;
  // True once the source can produce no more frames (end of a finite capture, or a failure).
  virtual bool ended() const { return false; }
};

}  // namespace hdstream
