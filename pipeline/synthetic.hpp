// Synthetic feed: frames of unique pseudo-random bytes (like the seeds' "speedy"), each stamped
// with its stream, sequence number and an XXH3-64 of its content so the receiver can verify the
// whole frame end to end, beyond the per-chunk checks.
//   SyntheticSource source(stream_id, frame_bytes);  FramePtr f = source.next_frame(seq);
//   bool ok = verify_synthetic(*f);
// A frame is a pseudo-random background plus a canary every 4 KiB derived from (stream, seq,
// offset), so every frame is unique and stale or misplaced data anywhere fails the checksum.
// A synthetic feed stands in for a capture card, which fills buffers by DMA, not with the CPU:
// a pooled buffer keeps its background and only the canaries, stamp and checksum are rewritten
// (0.2 % of the bytes), so the sender measures the transport, not the generator.
#pragma once

#include <cstddef>
#include <cstdint>

#include "pipeline/source.hpp"

namespace hdstream {

inline constexpr std::size_t kSyntheticHeaderBytes = 24;
inline constexpr std::size_t kMinSyntheticFrameBytes = 64;

inline constexpr std::size_t kSyntheticCanarySpacing = 4096;  // one per page

class SyntheticSource : public FrameSource {
 public:
  SyntheticSource(std::uint16_t stream_id, std::size_t frame_bytes);
  FramePtr next_frame(std::uint64_t seq) override;

 private:
  std::uint16_t stream_id_;
  std::size_t frame_bytes_;
  FramePool pool_;
};

// Fills `frame.data` for (frame.stream_id, frame.seq): background, canaries, stamp, checksum.
// Deterministic.
void fill_synthetic(Frame& frame);

// Makes a frame that already holds synthetic content of this stream into frame.seq's: new
// canaries, stamp and checksum over the existing background.
void restamp_synthetic(Frame& frame);

// True when the frame carries the stamp of its own stream and sequence number and its content
// matches the stamped checksum.
bool verify_synthetic(const Frame& frame);

}  // namespace hdstream
