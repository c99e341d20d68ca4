// Writes received frames into a playable file with libavformat, exactly as they arrived: no
// decode, no re-encode. Container from the extension: .mov (DNxHD, v210, UYVY), .mxf (DNxHD),
// .mkv (DNxHD, v210, UYVY). A feed with audio gets a second stream, its PCM as carried
// (pcm_s16le / pcm_s24le), beside the picture.
//   FileWriter writer("feed0.mov", hello.feed, FileLayout::recording);   // throws MediaError
//   writer.write(picture, frame->seq - first_seq);       // ... writer.finish();
//   writer.write_audio(pcm, first_sample - first_sample_of_the_recording);
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "protocol/handshake.hpp"

struct AVFormatContext;
struct AVPacket;

namespace hdstream {

// A clip has its index at the end (a MOV's sample table: the fastest to read back, see
// media/file_reader.cpp). A recording stays readable up to about its last second when the
// process dies (media/recording_layout.hpp: a fragmented MOV).
enum class FileLayout : std::uint8_t { clip = 1, recording = 2 };

class FileWriter {
 public:
  FileWriter(std::string path, const FeedDescriptor& feed, FileLayout layout = FileLayout::clip);
  // Finishes the file (writes the index) if finish() was not called.
  ~FileWriter();
  FileWriter(const FileWriter&) = delete;
  FileWriter& operator=(const FileWriter&) = delete;

  // Appends one frame at `frame_index` frame periods from the start: gaps where frames were
  // dropped stay gaps, except in MXF, which cannot hold one: there the last picture written
  // fills it (up to kMaxRepeatedFrames). Throws MediaError on a write failure.
  void write(std::span<const std::byte> frame, std::int64_t frame_index);
  // Appends interleaved PCM starting `sample_index` samples from the start (feeds with audio).
  void write_audio(std::span<const std::byte> pcm, std::int64_t sample_index);
  // Writes the trailer/index that makes the file playable, and closes it. Idempotent.
  void finish();

  const std::string& path() const { return path_; }
  // Frames given to write(), and pictures repeated to fill gaps (MXF).
  std::uint64_t frames_written() const { return frames_written_; }
  std::uint64_t frames_repeated() const { return frames_repeated_; }

  // The longest gap filled: ten minutes at 29.97 fps (about 16 GB of DNxHD 220). A longer
  // outage is logged, and the rest of the gap closes up.
  static constexpr std::int64_t kMaxRepeatedFrames = 18'000;

  // Empty when a file named `path` can hold this feed; otherwise one line saying why.
  static std::string check(const std::string& path, const FeedDescriptor& feed);

 private:
  void release();
  void add_audio_stream(const AudioFormat& audio);
  void write_packet(std::span<const std::byte> frame, std::int64_t frame_index);

  std::string path_;
  AVFormatContext* format_ = nullptr;
  AVPacket* packet_ = nullptr;
  std::uint32_t audio_bytes_per_sample_ = 0;  // 0: no sound
  bool finished_ = false;
  std::uint64_t frames_written_ = 0;
  std::uint64_t frames_repeated_ = 0;
  bool repeats_gaps_ = false;          // MXF
  std::vector<std::byte> last_frame_;  // MXF: what fills a gap
  std::int64_t last_index_ = -1;
};

}  // namespace hdstream
