// What `recv --mux ts` does with one incoming TS beyond counting its pictures: its sound is
// decoded (TsAudioDecoder), played (--audio-output, media/GstAudioSink), metered
// (media/AudioWatch) and checked for gaps on its own PTS clock (a gap is counted, played as
// silence of its length and recorded as silence no longer than the time it took, at most a
// second), and each `--output file:` records the pictures as sent and the sound as PCM
// (TsRecording). With a program output, only the feed on air is heard. Runs on the session's
// own thread.
//   TsFeedMedia media(stream, *format, video, audio, output, counters);
//   media.packet(*packet);  ...  media.finish();
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "media/audio_watch.hpp"
#include "mux/ts_audio_decoder.hpp"
#include "mux/ts_recording.hpp"
#include "pipeline/media_output.hpp"
#include "stats/counters.hpp"

struct AVFormatContext;
struct AVPacket;

namespace hdstream {

class GstAudioSink;

class TsFeedMedia {
 public:
  // `video`, `audio`: the TS's stream indexes (audio -1: none). A sound that cannot be decoded
  // or played, or a file that cannot be written, is logged and left out; the rest goes on.
  TsFeedMedia(std::uint16_t stream, const AVFormatContext& input, int video, int audio,
              const MediaOutput& output, StreamCounters& counters);
  ~TsFeedMedia();  // finish()es
  TsFeedMedia(const TsFeedMedia&) = delete;
  TsFeedMedia& operator=(const TsFeedMedia&) = delete;

  const std::optional<AudioFormat>& sound() const { return format_; }
  // Every packet the TS delivers; those of other streams are ignored.
  void packet(const AVPacket& packet);
  // Plays out the sound and finalizes the recordings. Idempotent.
  void finish();

 private:
  void play(std::span<const std::byte> pcm, std::int64_t pts);
  void record(const std::function<void(TsRecording&)>& write);
  void count_played();

  std::uint16_t stream_;
  const AVFormatContext& input_;
  int video_, audio_;
  StreamCounters& counters_;
  std::optional<TsAudioDecoder> decoder_;
  std::optional<AudioFormat> format_;
  std::unique_ptr<GstAudioSink> speaker_;
  std::optional<AudioWatch> watch_;
  std::vector<std::unique_ptr<TsRecording>> recordings_;
  std::optional<std::int64_t> next_sample_;      // after the last sound, on the recording's clock
  std::int64_t last_sound_ns_ = 0;               // steady clock of the last sound
  std::vector<std::byte> quiet_;                 // a gap's silence
  std::function<bool(std::uint16_t)> heard_by_;  // MediaOutput::heard
  bool heard_ = true;
  std::uint64_t played_counted_ = 0;
  bool finished_ = false;
};

}  // namespace hdstream
