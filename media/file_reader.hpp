// Reads the video frames of a clip (MOV, MXF, MKV, raw .dnxhd) with libavformat, as they are
// stored: no decode, no re-encode. Loops back to the start at the end.
//   FileReader reader("media-samples/smpte-dnxhd36.mov", preset.feed);
//   FrameBytes bytes;  reader.read(bytes);   // next frame, looping
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "protocol/frame.hpp"
#include "protocol/handshake.hpp"

struct AVFormatContext;
struct AVPacket;
struct stat;

namespace hdstream {

class FileReader {
 public:
  // Opens and probes `path`. `fallback` supplies the frame rate for raw elementary streams,
  // which carry none. Throws MediaError when the file cannot be read or holds no video hdstream
  // can send as is (DNxHD, v210, UYVY).
  FileReader(std::string path, const FeedDescriptor& fallback);
  ~FileReader();
  FileReader(const FileReader&) = delete;
  FileReader& operator=(const FileReader&) = delete;

  // The clip's codec, size and frame rate; bit_rate_bps measured from its first frames.
  const FeedDescriptor& feed() const { return feed_; }
  const std::string& path() const { return path_; }

  // The next frame's bytes into `out`. At the end of the clip it starts over (counted in
  // loops()). Throws MediaError if the file cannot be read (or holds no frame at all).
  void read(FrameBytes& out);
  std::uint64_t loops() const { return loops_; }

  // True when frames are read straight from the file into the caller's buffer (a MOV, whose
  // sample table places every frame), false when through libavformat's packets.
  bool reads_in_place() const { return !extents_.empty(); }

  struct Extent {
    std::int64_t offset = 0;
    std::size_t bytes = 0;
    std::int64_t timestamp = 0;  // in the stream's time base
  };

 private:
  void open();
  void close();
  bool read_packet(FrameBytes& out);
  void rewind();
  void read_extent(FrameBytes& out);
  void read_in_place_if_indexed(const std::vector<Extent>& probed, const struct stat& opened);

  std::string path_;
  FeedDescriptor feed_;
  AVFormatContext* format_ = nullptr;
  AVPacket* packet_ = nullptr;
  int stream_index_ = -1;
  std::uint64_t loops_ = 0;
  std::vector<Extent> extents_;  // every frame's place in the file, or empty
  std::size_t next_extent_ = 0;
  int fd_ = -1;
};

}  // namespace hdstream
