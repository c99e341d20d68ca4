// Reads the sound of a clip (the first audio stream of a MOV, MXF or MKV) as stored, PCM 16 or
// 24-bit at 48 kHz: no decode, no resampling; big-endian PCM ('in24', 'twos') is only put in
// little-endian order. Opens the file on its own, beside FileReader, so the picture and the sound
// each read at their own pace.
//   auto sound = FileAudioReader::open_if_any("clip.mov");    // null: the clip is silent
//   sound->read(audio_samples_in_frame(feed, seq), pcm);      // appends; silence past the end
//   sound->rewind();                                          // the picture looped
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "protocol/handshake.hpp"

struct AVFormatContext;
struct AVPacket;

namespace hdstream {

class FileAudioReader {
 public:
  // Null when `path` has no audio stream. Throws MediaError when it has one hdstream cannot carry
  // as stored (compressed, not 48 kHz, above kMaxAudioChannels, neither 16 nor 24-bit, planar).
  static std::unique_ptr<FileAudioReader> open_if_any(const std::string& path);
  ~FileAudioReader();
  FileAudioReader(const FileAudioReader&) = delete;
  FileAudioReader& operator=(const FileAudioReader&) = delete;

  const AudioFormat& format() const { return audio_; }

  // Appends the next `samples` sample frames, interleaved little-endian; past the end of the
  // track, silence. Throws MediaError when the file cannot be read.
  void read(std::uint32_t samples, std::vector<std::byte>& out);
  // Back to the first sample (the picture started over).
  void rewind();

 private:
  FileAudioReader(std::string path, AVFormatContext* format, int stream_index, AudioFormat audio,
                  bool big_endian);

  std::string path_;
  AVFormatContext* format_;
  AVPacket* packet_;
  int stream_index_;
  AudioFormat audio_;
  bool big_endian_;
  bool at_end_ = false;
  std::vector<std::byte> pending_;  // read from the file, not yet handed out
  std::size_t pending_at_ = 0;
};

}  // namespace hdstream
