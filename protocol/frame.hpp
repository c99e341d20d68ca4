// A video frame as it travels through hdstream: bytes plus the identity the wire carries.
//   FramePool pool;  FramePtr f = pool.acquire(frame_bytes);  f->seq = 7;  ...
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace hdstream {

struct Frame {
  std::uint16_t stream_id = 0;
  std::uint64_t seq = 0;
  std::int64_t ready_ns = 0;    // sender wall clock when the frame was ready to send
  std::int64_t arrival_ns = 0;  // receiver wall clock when its last chunk arrived
  std::vector<std::byte> data;
};

using FramePtr = std::shared_ptr<Frame>;

// Recycles frame buffers so that steady-state streaming allocates nothing. Frames handed out
// return their buffer to the pool when the last reference goes, even after the pool object
// itself is destroyed (the shared state lives until then). Thread safe.
class FramePool {
 public:
  explicit FramePool(std::size_t max_idle_frames = 16);

  // A frame whose `data` has exactly `bytes` bytes (contents unspecified).
  FramePtr acquire(std::size_t bytes);

  std::size_t idle_frames() const;

 private:
  struct State {
    std::mutex mutex;
    std::vector<std::unique_ptr<Frame>> idle;
    std::size_t max_idle = 0;
  };
  std::shared_ptr<State> state_;
};

}  // namespace hdstream
