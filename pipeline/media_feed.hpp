// The receiving media path of one feed: a bounded decode queue filled from the network strand
// (never blocking it), and a worker thread that records the frame as it came (file), decodes
// it with libavcodec, shows it (display) or discards it (null), and counts all of it.
//   MediaFeed media(stream, hello, output, counters);   // starts its worker
//   media.push(frame);                                  // network strand; drops oldest if full
//   media.finish();                                     // drain, finalize the file, join
#pragma once

#include <cstdint>
#include <thread>

#include "pipeline/frame_queue.hpp"
#include "pipeline/media_output.hpp"
#include "protocol/handshake.hpp"
#include "stats/counters.hpp"

namespace hdstream {

class MediaFeed {
 public:
  MediaFeed(std::uint16_t stream, const Hello& hello, const MediaOutput& output,
            StreamCounters& counters);
  ~MediaFeed();
  MediaFeed(const MediaFeed&) = delete;
  MediaFeed& operator=(const MediaFeed&) = delete;

  // Never blocks: when the decoder is `queue_frames` behind, the oldest waiting frame is
  // dropped and counted (drops and dropped_before_decode).
  void push(FramePtr frame);
  // No more frames: the worker decodes what is queued, finalizes its sink and exits.
  void close() { queue_.close(); }
  // close() and wait for the worker. Idempotent.
  void finish();

 private:
  void run();

  std::uint16_t stream_;
  Hello hello_;
  MediaOutput output_;
  StreamCounters& counters_;
  FrameQueue queue_;
  std::jthread worker_;
};

}  // namespace hdstream
