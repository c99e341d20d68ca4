// A video frame as it travels through hdstream: bytes plus the identity the wire carries.
//   FramePool pool;  FramePtr f = pool.acquire(frame_bytes);  f->seq = 7;  ...
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include <boost/core/noinit_adaptor.hpp>

namespace hdstream {

// A frame's bytes. Sized without being zeroed: every byte is written before it is read (a chunk's
// payload, a captured or stamped picture), so a peer announcing a 12 MiB frame with a one-byte
// chunk costs the receiver the page it wrote, not a memset of all 12 MiB on its io thread.
// Copying one goes element by element (the allocator's construct): 35 times slower than a
// std::vector<std::byte> copy at -O2. On a hot path, resize and memcpy instead.
using FrameBytes = std::vector<std::byte, boost::noinit_adaptor<std::allocator<std::byte>>>;

struct Frame {
  std::uint16_t stream_id = 0;
  std::uint64_t seq = 0;
  std::int64_t ready_ns = 0;    // sender wall clock when the frame was ready to send
  std::int64_t arrival_ns = 0;  // receiver wall clock when its last chunk arrived
  // Set by the Reassembler once the frame is whole: a sum of its verified chunks' XXH3s, each
  // mixed with its index, so equal bytes cut into the same chunks give an equal fingerprint in
  // whatever order the chunks came. PictureWatch compares it instead of hashing each picture.
  // It depends on the chunking, which a session fixes in its HELLO (both legs of a protected
  // feed use the sender's one chunk size).
  std::optional<std::uint64_t> content_fingerprint;
  // Set by FramePool::acquire: `data` held an earlier frame of this pool (what its user wrote,
  // up to that frame's size), not fresh memory, whose contents are anything.
  bool recycled = false;
  FrameBytes data;
};

using FramePtr = std::shared_ptr<Frame>;

// A pooled frame's buffer holds this many bytes past the frame's last one (contents
// unspecified): SIMD code that reads whole blocks (libavcodec's, libswscale's) may run past a
// picture that ends the frame, and a picture decoded in place from the frame's bytes
// (VideoDecoder) must not take it past the allocation.
inline constexpr std::size_t kFrameSlackBytes = 64;

class MemoryBudget;

// Recycles frame buffers so that steady-state streaming allocates nothing. Frames handed out
// return their buffer to the pool when the last reference goes, even after the pool object
// itself is destroyed (the shared state lives until then). Thread safe.
//
// With a `budget` (a receiver's), idle buffers only use room no session has reserved: live
// frames stay within the sessions' reservations and idle ones within the rest, so all frame
// buffers together stay within the budget's limit.
class FramePool {
 public:
  explicit FramePool(std::size_t max_idle_frames = 16,
                     std::shared_ptr<const MemoryBudget> budget = nullptr);

  // A frame whose `data` has exactly `bytes` bytes (contents unspecified) and a buffer of at
  // least bytes + kFrameSlackBytes and at most max(bytes, max_capacity_bytes) +
  // kFrameSlackBytes: an idle buffer larger than that is freed, not reused, so a frame never
  // holds more memory than its session reserved for it.
  FramePtr acquire(std::size_t bytes, std::size_t max_capacity_bytes = SIZE_MAX);

  std::size_t idle_frames() const;
  std::size_t idle_bytes() const;  // capacity of the idle buffers

 private:
  struct State {
    std::mutex mutex;
    std::vector<std::unique_ptr<Frame>> idle;
    std::size_t idle_bytes = 0;
    std::size_t max_idle = 0;
    std::shared_ptr<const MemoryBudget> budget;
    std::size_t idle_room() const;  // with the mutex held
  };
  std::shared_ptr<State> state_;
};

}  // namespace hdstream
