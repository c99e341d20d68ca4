// Writes received frames into a playable file with libavformat, exactly as they arrived: no
// decode, no re-encode. Container from the extension: .mov (DNxHD, v210, UYVY), .mxf (DNxHD),
// .mkv (DNxHD, v210, UYVY).
//   FileWriter writer("feed0.mov", hello.feed);          // throws MediaError
//   writer.write(frame->data, frame->seq - first_seq);   // ... writer.finish();
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "protocol/handshake.hpp"

struct AVFormatContext;
struct AVPacket;

namespace hdstream {

class FileWriter {
 public:
  FileWriter(std::string path, const FeedDescriptor& feed);
  // Finishes the file (writes the index) if finish() was not called.
  ~FileWriter();
  FileWriter(const FileWriter&) = delete;
  FileWriter& operator=(const FileWriter&) = delete;

  // Appends one frame at `frame_index` frame periods from the start (gaps where frames were
  // dropped stay gaps). Throws MediaError on a write failure.
  void write(std::span<const std::byte> frame, std::int64_t frame_index);
  // Writes the trailer/index that makes the file playable, and closes it. Idempotent.
  void finish();

  const std::string& path() const { return path_; }
  std::uint64_t frames_written() const { return frames_written_; }

  // Empty when a file named `path` can hold this feed; otherwise one line saying why.
  static std::string check(const std::string& path, const FeedDescriptor& feed);

 private:
  void release();

  std::string path_;
  AVFormatContext* format_ = nullptr;
  AVPacket* packet_ = nullptr;
  bool finished_ = false;
  std::uint64_t frames_written_ = 0;
};

}  // namespace hdstream
