// Sound from a GStreamer launch description through appsink, converted to interleaved PCM at
// 48 kHz with the channels and bits asked for: "audiotestsrc wave=sine", "alsasrc", "pulsesrc",
// "decklinkaudiosrc", ... The samples wait in a ring of at most a second, which a source faster
// than real time (a test source, a file) fills and then waits on; a live source that is ahead
// when the ring is full waits in GStreamer, which drops as the device would.
//   GstAudioSource sound("audiotestsrc wave=sine", {8, 24, kAudioSampleRate});  // prerolls
//   sound.start();  sound.read(audio_samples_in_frame(feed, seq), pcm);
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "protocol/handshake.hpp"

typedef struct _GstElement GstElement;
typedef struct _GstMessage GstMessage;

namespace hdstream {

class GstAudioSource {
 public:
  // Appends conversion to `format` and an appsink to `description`, then prerolls, so a missing
  // element or device fails here, as MediaError.
  GstAudioSource(const std::string& description, const AudioFormat& format);
  ~GstAudioSource();
  GstAudioSource(const GstAudioSource&) = delete;
  GstAudioSource& operator=(const GstAudioSource&) = delete;

  const AudioFormat& format() const { return format_; }

  // Starts the pipeline and waits (at most 10 s) until `samples` are ready: the first frame's.
  void start(std::uint32_t samples);
  // Appends exactly `samples` sample frames: what the source has produced and, when it has
  // fallen behind or ended, silence for the rest (counted in missing_samples()).
  void read(std::uint32_t samples, std::vector<std::byte>& out);
  std::uint64_t missing_samples() const;
  // Drops all but the newest `samples`: what a live source made while the picture was still
  // starting would otherwise play that late for the whole feed.
  void keep_newest(std::uint32_t samples);
  std::size_t buffered_samples() const;  // produced and not yet read
  // The pipeline has ended (end of stream, an error, logged) or been stopped: no more samples.
  bool ended() const;
  void stop();

 private:
  void run();
  GstMessage* pending_error() const;  // an error on the bus, or null (the caller unrefs it)

  AudioFormat format_;
  GstElement* pipeline_ = nullptr;
  GstElement* appsink_ = nullptr;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::byte> ring_;  // produced, not yet read
  std::size_t ring_limit_;      // a second of sound
  std::uint64_t missing_ = 0;
  bool stopping_ = false;
  bool ended_ = false;
  std::jthread thread_;
};

}  // namespace hdstream
