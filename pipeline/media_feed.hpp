// The receiving media path of one feed, fed from the network strand (never blocking it): a
// Recorder per file output, each behind its own queue, and a bounded decode queue with a worker
// thread that decodes with libavcodec, shows the picture (display) or discards it (null), and
// counts all of it. A slow display never costs a recording a frame.
//   MediaFeed media(stream, hello, output, counters);   // starts its workers
//   media.push(frame);                                  // network strand; drops oldest if full
//   media.finish();                                     // drain, finalize the files, join
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "media/audio_watch.hpp"
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
  bool accept_sound(const Frame& frame);                              // network strand
  void measure_av_offset(std::uint64_t seq, std::int64_t shown_ns);   // worker
  void hold_for_sound(std::uint64_t sample, std::int64_t queued_ns);  // worker
  static std::unique_ptr<GstAudioSink> open_speaker(std::uint16_t stream, const AudioFormat& audio,
                                                    const std::string& device);
  void count_played();  // worker, then finish()

  std::uint16_t stream_;
  Hello hello_;
  MediaOutput output_;
  StreamCounters& counters_;
  std::uint64_t sound_until_seq_;  // the frame after the last whose sound came (network strand)
  std::unique_ptr<GstAudioSink> speaker_;  // a feed with sound: where it plays
  std::optional<AudioWatch> audio_watch_;  // and its levels (network strand)
  bool speaker_finished_ = false;
  bool heard_ = true;                 // the speaker is not muted (network strand)
  std::uint64_t played_counted_ = 0;  // of speaker_->samples_played(), in the counters
  std::vector<std::unique_ptr<Recorder>> recorders_;
  FrameQueue queue_;
  std::uint64_t sound_errors_logged_ = 0;
  // The lip-sync marker: the last beep's frame and when the sink plays it (steady clock).
  struct Marker {
    std::uint64_t seq = 0;
    std::int64_t at_ns = 0;
  };
  bool beeping_ = false;                    // network strand: the last frame's sound was a beep
  std::atomic<std::int64_t> decode_ns_{0};  // a decode's time, smoothed (worker; read by play)
  std::mutex marker_mutex_;
  std::optional<Marker> beep_;
  std::jthread worker_;
};

}  // namespace hdstream
