// Synthetic feed: frames of unique pseudo-random bytes (like the seeds' "speedy"), each stamped
// with its stream, sequence number and size, and a canary every KiB (and in its last 8 bytes)
// derived from (stream, seq, offset), so every frame is unique and a chunk of another frame, in
// another place or left from a previous use of the buffer fails verification at the receiver.
//   SyntheticSource source(stream_id, frame_bytes);  FramePtr f = source.next_frame(seq);
//   bool ok = verify_synthetic(*f);
// Every byte's content is verified once, by the chunk checksums the reassembler checks in the
// frame's own memory (protocol/reassembler.hpp); this check adds what those cannot see: that the
// verified chunks make up this frame, in place. A second hash of the whole frame would duplicate
// the chunk checksums at a memory pass per side.
// A synthetic feed stands in for a capture card, which fills buffers by DMA, not with the CPU:
// a pooled buffer keeps its background and only the stamp and canaries are rewritten (0.8 % of
// the bytes), so the sender measures the transport, not the generator.
#pragma once

#include <cstddef>
#include <cstdint>

#include "pipeline/source.hpp"

namespace hdstream {

inline constexpr std::size_t kSyntheticHeaderBytes = 24;
inline constexpr std::size_t kMinSyntheticFrameBytes = 64;

// One canary per KiB, the smallest chunk a sender cuts (SRT's are 1408 bytes): every chunk
// holds one, so a chunk out of place is caught whatever the transport.
inline constexpr std::size_t kSyntheticCanarySpacing = 1024;

class SyntheticSource : public FrameSource {
 public:
  SyntheticSource(std::uint16_t stream_id, std::size_t frame_bytes);
  FramePtr next_frame(std::uint64_t seq) override;

 private:
  std::uint16_t stream_id_;
  std::size_t frame_bytes_;
  FramePool pool_;
};

// Fills `frame.data` for (frame.stream_id, frame.seq): background, canaries, stamp.
// Deterministic.
void fill_synthetic(Frame& frame);

// Makes a frame that already holds synthetic content of this stream into frame.seq's: new
// canaries and stamp over the existing background.
void restamp_synthetic(Frame& frame);

// True when the frame carries the stamp of its own stream, sequence number and size, and every
// canary that of its own place in this frame. Cost: one word per KiB.
bool verify_synthetic(const Frame& frame);

}  // namespace hdstream
