// The recording of one feed into one file (--output file:PATTERN), on its own thread behind its
// own bounded queue: frames are written exactly as they came, and a slow display or decoder
// never costs the recording a frame (nor a slow disk the display one).
//   Recorder recorder(stream, hello, "rec/feed{stream}.mov", 60, counters);   // starts its worker
//   recorder.push(frame);    // never blocks; drops the oldest (counted) when the disk lags
//   recorder.finish();       // drain, finalize the file, join
#pragma once

#include <cstdint>
#include <string>
#include <thread>

#include "pipeline/frame_queue.hpp"
#include "protocol/handshake.hpp"
#include "stats/counters.hpp"

namespace hdstream {

class Recorder {
 public:
  Recorder(std::uint16_t stream, const Hello& hello, std::string pattern, std::size_t queue_frames,
           StreamCounters& counters);
  ~Recorder();
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  // Never blocks: when the disk is `queue_frames` behind, the oldest waiting frame is dropped
  // and counted in dropped_before_record.
  void push(const FramePtr& frame);
  // No more frames: the worker writes what is queued, finalizes the file and exits.
  void close() { queue_.close(); }
  // close() and wait for the worker. Idempotent.
  void finish();

 private:
  void run();

  std::uint16_t stream_;
  Hello hello_;
  std::string pattern_;
  StreamCounters& counters_;
  FrameQueue queue_;
  std::jthread worker_;
};

}  // namespace hdstream
