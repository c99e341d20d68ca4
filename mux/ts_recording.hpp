// A recording of an incoming MPEG-TS (`recv --mux ts --output file:...`): its video packets as
// they came (no decode, no re-encode; from the first key frame) and its sound as PCM
// (pcm_s16le/pcm_s24le, what TsAudioDecoder made of it: 302M's samples exactly), in the
// container the extension names (.mkv, .mov), both on the TS's own clock, laid out to stay
// readable up to about its last second if the receiver dies (media/recording_layout.hpp).
//   TsRecording file("ingest0.mkv", *format->streams[video], sound.format());  // MediaError
//   file.write_video(*packet, start_pts);  file.write_audio(pcm, sample_index);  file.finish();
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "protocol/handshake.hpp"

struct AVFormatContext;
struct AVPacket;
struct AVStream;

namespace hdstream {

class TsRecording {
 public:
  // `audio`: the sound's format, or none (video only). Throws MediaError naming the file.
  TsRecording(std::string path, const AVStream& video, const AudioFormat& audio);
  ~TsRecording();  // finish()es
  TsRecording(const TsRecording&) = delete;
  TsRecording& operator=(const TsRecording&) = delete;

  // A video packet of the TS (time base: `video`'s), `origin` (the same time base) being the
  // recording's time zero. Packets before the first key frame are left out (false). Throws
  // MediaError.
  bool write_video(const AVPacket& packet, std::int64_t origin);
  // Interleaved PCM whose first sample is `sample_index` samples after time zero.
  void write_audio(std::span<const std::byte> pcm, std::int64_t sample_index);
  // Writes the index that makes the file playable. Idempotent.
  void finish();

  const std::string& path() const { return path_; }

 private:
  void release();

  std::string path_;
  AudioFormat audio_;
  AVFormatContext* format_ = nullptr;
  AVPacket* packet_ = nullptr;
  int input_time_base_num_ = 1, input_time_base_den_ = 90'000;
  bool keyed_ = false;  // the first key frame was written
  bool finished_ = false;
};

}  // namespace hdstream
