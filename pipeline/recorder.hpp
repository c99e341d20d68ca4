// The recording of one feed into one file (--output file:PATTERN), on its own thread behind its
// own bounded queue: frames are written exactly as they came, and a slow display or decoder
// never costs the recording a frame (nor a slow disk the display one).
// The file is the pattern's, or the next free numbered name beside it (RecordingNames), laid out
// to stay readable up to about its last second if the receiver dies (FileLayout::recording).
// It lives as long as the feed: across outages (a resumed session's frames go on in it, at
// their places counted from the recording's first frame).
//   Recorder recorder(stream, hello, "rec/feed{stream}.mov", names, 60, counters);   // starts
//   recorder.push(frame);    // never blocks; drops the oldest (counted) when the disk lags
//   recorder.finish();       // drain, finalize the file, join
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "pipeline/frame_queue.hpp"
#include "pipeline/recording_names.hpp"
#include "protocol/handshake.hpp"
#include "stats/counters.hpp"

namespace hdstream {

class Recorder {
 public:
  Recorder(std::uint16_t stream, const Hello& hello, std::string pattern,
           std::shared_ptr<RecordingNames> names, std::size_t queue_frames,
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
  std::shared_ptr<RecordingNames> names_;
  StreamCounters& counters_;
  FrameQueue queue_;
  std::jthread worker_;
};

}  // namespace hdstream
