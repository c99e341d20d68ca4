#include "media/file_reader.hpp"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <string_view>
#include <system_error>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

extern "C" {
#include <libavformat/avformat.h>
}

#include "media/av_formats.hpp"
#include "media/media_error.hpp"
#include "protocol/feed_limits.hpp"

namespace hdstream {
namespace {

// Elementary-stream demuxers report a made-up 25 fps; the preset knows better.
bool has_no_timing(const AVFormatContext* format) {
  const std::string name = format->iformat->name;
  return name == "dnxhd" || name == "rawvideo" || name == "v210" || name == "v210x";
}

// Where each frame of `stream` lies in the file, when the container's index gives every frame's
// payload: a MOV's sample table does (MXF's index points at KLV packets, Matroska's cues at
// some clusters, raw streams have none). Frames are then read straight from there.
std::vector<FileReader::Extent> frame_extents(const AVFormatContext* format, AVStream* stream) {
  if (std::string_view(format->iformat->name).find("mov") == std::string_view::npos) return {};
  const int count = avformat_index_get_entries_count(stream);
  if (count <= 0 || stream->nb_frames != count) return {};
  std::vector<FileReader::Extent> extents;
  extents.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    const AVIndexEntry* entry = avformat_index_get_entry(stream, i);
    if (!entry || entry->size <= 0 || entry->pos < 0 || (entry->flags & AVINDEX_DISCARD_FRAME)) {
      return {};
    }
    extents.push_back({entry->pos, static_cast<std::size_t>(entry->size), entry->timestamp});
  }
  return extents;
}

// The file `fd` has open is the one at `path` when libavformat opened it (not replaced since).
bool same_file(int fd, const struct stat& opened) {
  struct stat now {};
  return ::fstat(fd, &now) == 0 && now.st_dev == opened.st_dev && now.st_ino == opened.st_ino &&
         now.st_size == opened.st_size;
}

}  // namespace

FileReader::FileReader(std::string path, const FeedDescriptor& fallback) : path_(std::move(path)) {
  quiet_libav();
  packet_ = av_packet_alloc();
  try {
    struct stat opened {};
    if (::stat(path_.c_str(), &opened) != 0) opened = {};  // libavformat says why below
    open();
    const AVStream* stream = format_->streams[stream_index_];
    const AVCodecParameters* par = stream->codecpar;
    const auto codec = codec_from_av(par->codec_id, par->format);
    if (!codec) {
      throw MediaError(fmt::format(
          "'{}' holds {} video; hdstream sends DNxHD, v210 or UYVY files as they are (convert "
          "with scripts/make-media-samples.sh or ffmpeg)",
          path_, avcodec_get_name(par->codec_id)));
    }
    feed_.codec = *codec;
    feed_.width = static_cast<std::uint16_t>(par->width);
    feed_.height = static_cast<std::uint16_t>(par->height);
    AVRational rate =
        stream->avg_frame_rate.num > 0 ? stream->avg_frame_rate : stream->r_frame_rate;
    if (has_no_timing(format_) || rate.num <= 0 || rate.den <= 0) {
      rate = AVRational{static_cast<int>(fallback.frame_rate_num),
                        static_cast<int>(fallback.frame_rate_den)};
    }
    // The closest rate whose terms a HELLO may carry (a container's average can be anything).
    int num = 0, den = 0;
    av_reduce(&num, &den, rate.num, rate.den, kMaxFrameRateTerm);
    feed_.frame_rate_num = static_cast<std::uint32_t>(num);
    feed_.frame_rate_den = static_cast<std::uint32_t>(std::max(den, 1));

    // Measure the rate from the frames themselves (container bit rates are often absent).
    FrameBytes scratch;
    std::vector<Extent> probed;  // where libavformat found them
    std::uint64_t bytes = 0, frames = 0;
    while (frames < 30 && read_packet(scratch)) {
      bytes += scratch.size();
      ++frames;
      probed.push_back({.offset = packet_->pos, .bytes = scratch.size()});
    }
    if (frames == 0) throw MediaError(fmt::format("'{}' holds no video frames", path_));
    feed_.bit_rate_bps = static_cast<std::uint64_t>(std::llround(
        static_cast<double>(bytes) * 8 / static_cast<double>(frames) * feed_.frames_per_second()));
    read_in_place_if_indexed(probed, opened);
    rewind();
  } catch (...) {
    close();
    av_packet_free(&packet_);
    throw;
  }
}

FileReader::~FileReader() {
  if (fd_ >= 0) ::close(fd_);
  close();
  av_packet_free(&packet_);
}

// Frames are read in place only where libavformat agrees with the index: its first packets
// lie where the index says, and its last packet is the index's last frame (a fragmented MP4
// whose sample table covers only its first part goes on past it). Otherwise, or if the path no
// longer names the file libavformat opened, frames come through libavformat's packets.
void FileReader::read_in_place_if_indexed(const std::vector<Extent>& probed,
                                          const struct stat& opened) {
  std::vector<Extent> extents = frame_extents(format_, format_->streams[stream_index_]);
  if (extents.size() < probed.size()) return;
  for (std::size_t i = 0; i < probed.size(); ++i) {
    if (probed[i].offset != extents[i].offset || probed[i].bytes != extents[i].bytes) return;
  }
  const Extent& last = extents.back();
  if (av_seek_frame(format_, stream_index_, last.timestamp, AVSEEK_FLAG_BACKWARD) < 0) return;
  FrameBytes scratch;
  bool reached_last = false;
  constexpr std::size_t kMostPackets = 64;  // an intra-only clip's seek lands on the last frame
  try {
    for (std::size_t read = 0; (read < kMostPackets || reached_last) && read_packet(scratch);
         ++read) {
      if (reached_last) return;  // a packet past the index's last frame
      reached_last = packet_->pos == last.offset && scratch.size() == last.bytes;
    }
  } catch (const MediaError&) {
    return;  // libavformat's packets will say what is wrong with the file, if anything
  }
  if (!reached_last) return;
  const int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  if (!same_file(fd, opened)) {
    ::close(fd);
    return;
  }
  fd_ = fd;
  extents_ = std::move(extents);
}

void FileReader::open() {
  const int opened = avformat_open_input(&format_, path_.c_str(), nullptr, nullptr);
  if (opened < 0) {
    format_ = nullptr;
    throw MediaError(fmt::format("cannot read '{}': {}", path_, av_error_text(opened)));
  }
  av_check(avformat_find_stream_info(format_, nullptr), fmt::format("cannot probe '{}'", path_));
  stream_index_ = av_find_best_stream(format_, AVMEDIA_TYPE_VIDEO, -1, -1, nullptr, 0);
  if (stream_index_ < 0) throw MediaError(fmt::format("'{}' has no video stream", path_));
}

void FileReader::close() {
  avformat_close_input(&format_);
}

bool FileReader::read_packet(FrameBytes& out) {
  for (;;) {
    av_packet_unref(packet_);
    const int result = av_read_frame(format_, packet_);
    if (result == AVERROR_EOF) return false;
    av_check(result, fmt::format("cannot read '{}'", path_));
    if (packet_->stream_index != stream_index_) continue;
    out.resize(static_cast<std::size_t>(packet_->size));
    std::memcpy(out.data(), packet_->data, out.size());
    return true;
  }
}

void FileReader::rewind() {
  // Seeking is cheap where the container has an index; raw streams may refuse, so reopen.
  if (av_seek_frame(format_, stream_index_, 0, AVSEEK_FLAG_BACKWARD) < 0 &&
      av_seek_frame(format_, -1, 0, AVSEEK_FLAG_BYTE) < 0) {
    close();
    open();
  }
}

// One kernel copy from the page cache into `out`, which keeps its buffer: no packet is
// allocated (4 MB of fresh pages a frame for uncompressed HD) and none is copied.
void FileReader::read_extent(FrameBytes& out) {
  if (next_extent_ == extents_.size()) {
    next_extent_ = 0;
    ++loops_;
  }
  const Extent& extent = extents_[next_extent_++];
  out.resize(extent.bytes);
  std::size_t done = 0;
  while (done < extent.bytes) {
    const ::ssize_t got = ::pread(fd_, out.data() + done, extent.bytes - done,
                                  static_cast<::off_t>(extent.offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      throw MediaError(fmt::format("cannot read '{}': {}", path_,
                                   got < 0
                                       ? std::error_code(errno, std::generic_category()).message()
                                       : std::string("the file was cut short")));
    }
    done += static_cast<std::size_t>(got);
  }
}

void FileReader::read(FrameBytes& out) {
  if (!extents_.empty()) return read_extent(out);
  if (read_packet(out)) return;
  rewind();
  ++loops_;
  if (!read_packet(out)) throw MediaError(fmt::format("'{}' holds no video frames", path_));
}

}  // namespace hdstream
