// The receiving media path of one feed, fed from the network strand (never blocking it): a
// Recorder per file output, each behind its own queue, and a bounded decode queue with a worker
// thread that decodes with libavcodec, shows the picture (display) or discards it (null), and
// counts all of it. A slow display never costs a recording a frame.
//   MediaFeed media(stream, hello, output, counters);   // starts its workers
//   media.push(frame);                                  // network strand; drops oldest if full
//   media.finish();                                     // drain, finalize the files, join
#pragma once

#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "pipeline/feed_media.hpp"
#include "pipeline/frame_queue.hpp"
#include "pipeline/media_output.hpp"
#include "pipeline/recorder.hpp"
#include "protocol/handshake.hpp"
#include "stats/counters.hpp"

namespace hdstream {

class GstAudioSink;

class MediaFeed final : public FeedMedia {
 public:
  MediaFeed(std::uint16_t stream, const Hello& hello, const MediaOutput& output,
            StreamCounters& counters);
  ~MediaFeed() override;
  MediaFeed(const MediaFeed&) = delete;
  MediaFeed& operator=(const MediaFeed&) = delete;

  // Never blocks: each recording takes the frame into its own queue, and when the decoder is
  // `queue_frames` behind, the oldest waiting frame is dropped and counted (drops and
  // dropped_before_decode).
  // On a feed with audio, a frame whose audio block is not the frame clock's is refused here
  // (decode_errors), and sound that never came is counted (audio_gaps, audio_silence_samples).
  void push(FramePtr frame) override;
  // No more frames: the workers drain their queues, finalize their sinks and exit.
  void close() override;
  // close() and wait for the worker. Idempotent.
  void finish() override;

 private:
  void run();
  bool accept_sound(const Frame& frame);  // network strand

  std::uint16_t stream_;
  Hello hello_;
  MediaOutput output_;
  StreamCounters& counters_;
  std::uint64_t sound_until_seq_;  // the frame after the last whose sound came (network strand)
  std::unique_ptr<GstAudioSink> speaker_;  // a feed with sound: where it plays
  std::vector<std::unique_ptr<Recorder>> recorders_;
  FrameQueue queue_;
  std::uint64_t sound_errors_logged_ = 0;
  std::vector<std::byte> silence_;
  std::jthread worker_;
};

}  // namespace hdstream
