// Synthetic feed: frames of unique pseudo-random bytes (like the seeds' "speedy"), each stamped
// with its stream, sequence number and an XXH3-64 of its content so the receiver can verify the
// whole frame end to end, beyond the per-chunk checks.
//   SyntheticSource source(stream_id, frame_bytes);  FramePtr f = source.next_frame(seq);
//   bool ok = verify_synthetic(*f);
// A memory-to-memory bench reuses its buffers the way ttcp and iperf3 do
// (`SyntheticContent::reused`): a pooled frame keeps the content it was filled with and only its
// stamp (sequence number) is rewritten, so the sender measures the transport, not the generator.
// The receiver's checks are the same either way.
#pragma once

#include <cstddef>
#include <cstdint>

#include "pipeline/source.hpp"

namespace hdstream {

inline constexpr std::size_t kSyntheticHeaderBytes = 24;
inline constexpr std::size_t kMinSyntheticFrameBytes = 64;

enum class SyntheticContent { fresh, reused };

class SyntheticSource : public FrameSource {
 public:
  SyntheticSource(std::uint16_t stream_id, std::size_t frame_bytes,
                  SyntheticContent content = SyntheticContent::fresh);
  FramePtr next_frame(std::uint64_t seq) override;

 private:
  std::uint16_t stream_id_;
  std::size_t frame_bytes_;
  SyntheticContent content_;
  FramePool pool_;
};

// Fills `frame.data` for (frame.stream_id, frame.seq); deterministic.
void fill_synthetic(Frame& frame);

// True when the frame carries the stamp of its own stream and sequence number and its content
// matches the stamped checksum.
bool verify_synthetic(const Frame& frame);

}  // namespace hdstream
