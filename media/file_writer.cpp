#include "media/file_writer.hpp"

#include <algorithm>
#include <filesystem>
#include <string_view>

#include <fmt/format.h>

extern "C" {
#include <libavformat/avformat.h>
}

#include "common/log.hpp"
#include "media/av_formats.hpp"
#include "media/media_error.hpp"
#include "media/recording_layout.hpp"

namespace hdstream {
namespace {

const AVOutputFormat* container_for(const std::string& path) {
  return av_guess_format(nullptr, path.c_str(), nullptr);
}

}  // namespace

std::string FileWriter::check(const std::string& path, const FeedDescriptor& feed) {
  const AVOutputFormat* container = container_for(path);
  if (!container) {
    return fmt::format("'{}': no container for that extension (use .mov, .mkv or .mxf)", path);
  }
  const AVCodecID id = av_codec_id(feed.codec);
  if (id == AV_CODEC_ID_NONE) return fmt::format("{} feeds are not video", to_string(feed.codec));
  // libavformat's own codec lists are incomplete (matroska answers "no" for DNxHD, yet writes
  // it through its VFW mapping): the header write is the real check, and fails with one line.
  const auto parent = std::filesystem::path(path).parent_path();
  if (!parent.empty() && !std::filesystem::is_directory(parent)) {
    return fmt::format("'{}': directory '{}' does not exist", path, parent.string());
  }
  return {};
}

FileWriter::FileWriter(std::string path, const FeedDescriptor& feed, FileLayout layout)
    : path_(std::move(path)) {
  quiet_libav();
  if (auto problem = check(path_, feed); !problem.empty()) throw MediaError(problem);
  try {
    av_check(avformat_alloc_output_context2(&format_, nullptr, nullptr, path_.c_str()),
             fmt::format("create '{}'", path_));
    packet_ = av_packet_alloc();
    AVStream* stream = avformat_new_stream(format_, nullptr);
    if (!packet_ || !stream) throw MediaError("out of memory creating a file writer");
    stream->time_base =
        AVRational{static_cast<int>(feed.frame_rate_den), static_cast<int>(feed.frame_rate_num)};
    stream->avg_frame_rate =
        AVRational{static_cast<int>(feed.frame_rate_num), static_cast<int>(feed.frame_rate_den)};
    stream->r_frame_rate = stream->avg_frame_rate;
    AVCodecParameters* par = stream->codecpar;
    par->codec_type = AVMEDIA_TYPE_VIDEO;
    par->codec_id = av_codec_id(feed.codec);
    par->width = feed.width;
    par->height = feed.height;
    par->bit_rate = static_cast<std::int64_t>(feed.bit_rate_bps);
    par->field_order = AV_FIELD_PROGRESSIVE;
    par->sample_aspect_ratio = AVRational{1, 1};
    par->format = feed.codec == Codec::uyvy   ? AV_PIX_FMT_UYVY422
                  : feed.codec == Codec::v210 ? AV_PIX_FMT_YUV422P10LE
                                              : AV_PIX_FMT_YUV422P;
    if (feed.codec == Codec::uyvy) par->codec_tag = MKTAG('2', 'v', 'u', 'y');
    if (std::string(format_->oformat->name) == "matroska" && feed.codec == Codec::uyvy) {
      par->codec_tag = MKTAG('U', 'Y', 'V', 'Y');
    }
    if (feed.audio.present()) add_audio_stream(feed.audio);
    // MXF's index counts pictures and has no gaps: frames that never came are filled with the
    // last one that did, so that the pictures after an outage keep their time.
    repeats_gaps_ = std::string_view(format_->oformat->name).starts_with("mxf");
    av_check(avio_open(&format_->pb, path_.c_str(), AVIO_FLAG_WRITE),
             fmt::format("cannot write '{}'", path_));
    AVDictionary* options = nullptr;
    if (layout == FileLayout::recording) add_recording_layout(&options, *format_);
    const int rc = avformat_write_header(format_, &options);
    av_dict_free(&options);
    av_check(rc, fmt::format("start '{}'", path_));
  } catch (...) {
    release();
    throw;
  }
}

void FileWriter::add_audio_stream(const AudioFormat& audio) {
  AVStream* stream = avformat_new_stream(format_, nullptr);
  if (!stream) throw MediaError("out of memory creating a file writer");
  stream->time_base = AVRational{1, static_cast<int>(audio.sample_rate)};
  AVCodecParameters* par = stream->codecpar;
  par->codec_type = AVMEDIA_TYPE_AUDIO;
  par->codec_id = audio.bits == 24 ? AV_CODEC_ID_PCM_S24LE : AV_CODEC_ID_PCM_S16LE;
  par->sample_rate = static_cast<int>(audio.sample_rate);
  av_channel_layout_default(&par->ch_layout, audio.channels);
  par->bits_per_coded_sample = audio.bits;
  par->block_align = static_cast<int>(audio.bytes_per_sample());
  par->bit_rate = std::int64_t{audio.sample_rate} * audio.bytes_per_sample() * 8;
  audio_bytes_per_sample_ = audio.bytes_per_sample();
}

FileWriter::~FileWriter() {
  try {
    finish();
  } catch (const MediaError& error) {
    logger("media")->error("{}", error.what());
  }
  release();
}

void FileWriter::release() {
  if (format_ && format_->pb) avio_closep(&format_->pb);
  avformat_free_context(format_);
  format_ = nullptr;
  av_packet_free(&packet_);
}

void FileWriter::write(std::span<const std::byte> frame, std::int64_t frame_index) {
  if (finished_) return;
  if (repeats_gaps_) {
    if (!last_frame_.empty() && frame_index > last_index_ + 1) {
      const std::int64_t missing = frame_index - last_index_ - 1;
      const std::int64_t filled = std::min(missing, kMaxRepeatedFrames);
      if (filled < missing) {
        logger("media")->warn(
            "{}: {} frames missing; the last picture fills {} of them, and "
            "the pictures after come {} frames early",
            path_, missing, filled, missing - filled);
      }
      for (std::int64_t i = 1; i <= filled; ++i) write_packet(last_frame_, last_index_ + 1);
      frames_repeated_ += static_cast<std::uint64_t>(filled);
    }
    last_frame_.assign(frame.begin(), frame.end());
  }
  write_packet(frame, frame_index);
  ++frames_written_;
}

void FileWriter::write_packet(std::span<const std::byte> frame, std::int64_t frame_index) {
  last_index_ = frame_index;
  av_packet_unref(packet_);
  // The packet borrows the frame's bytes (not reference counted): the muxer copies or writes
  // them before returning.
  packet_->data = const_cast<std::uint8_t*>(reinterpret_cast<const std::uint8_t*>(frame.data()));
  packet_->size = static_cast<int>(frame.size());
  packet_->stream_index = 0;
  packet_->pts = packet_->dts = frame_index;
  packet_->duration = 1;
  packet_->flags = AV_PKT_FLAG_KEY;  // every format here is intra-only
  av_packet_rescale_ts(
      packet_,
      AVRational{format_->streams[0]->avg_frame_rate.den, format_->streams[0]->avg_frame_rate.num},
      format_->streams[0]->time_base);
  // With sound beside it, libavformat interleaves the two (and copies the borrowed bytes).
  av_check(audio_bytes_per_sample_ ? av_interleaved_write_frame(format_, packet_)
                                   : av_write_frame(format_, packet_),
           fmt::format("write '{}'", path_));
}

void FileWriter::write_audio(std::span<const std::byte> pcm, std::int64_t sample_index) {
  if (finished_ || audio_bytes_per_sample_ == 0 || pcm.empty()) return;
  av_packet_unref(packet_);
  packet_->data = const_cast<std::uint8_t*>(reinterpret_cast<const std::uint8_t*>(pcm.data()));
  packet_->size = static_cast<int>(pcm.size());
  packet_->stream_index = 1;
  packet_->pts = packet_->dts = sample_index;
  packet_->duration = static_cast<std::int64_t>(pcm.size() / audio_bytes_per_sample_);
  packet_->flags = AV_PKT_FLAG_KEY;
  av_packet_rescale_ts(packet_, AVRational{1, format_->streams[1]->codecpar->sample_rate},
                       format_->streams[1]->time_base);
  av_check(av_interleaved_write_frame(format_, packet_), fmt::format("write '{}'", path_));
}

void FileWriter::finish() {
  if (finished_ || !format_) return;
  finished_ = true;
  av_check(av_write_trailer(format_), fmt::format("finish '{}'", path_));
  avio_closep(&format_->pb);
}

}  // namespace hdstream
