#include "media/file_audio_reader.hpp"

#include <algorithm>
#include <optional>
#include <utility>

#include <fmt/format.h>

extern "C" {
#include <libavformat/avformat.h>
}

#include "media/media_error.hpp"

namespace hdstream {
namespace {

struct PcmLayout {
  std::uint8_t bits;
  bool big_endian;
};

std::optional<PcmLayout> pcm_layout(AVCodecID id) {
  switch (id) {
    case AV_CODEC_ID_PCM_S16LE:
      return PcmLayout{16, false};
    case AV_CODEC_ID_PCM_S24LE:
      return PcmLayout{24, false};
    case AV_CODEC_ID_PCM_S16BE:
      return PcmLayout{16, true};
    case AV_CODEC_ID_PCM_S24BE:
      return PcmLayout{24, true};
    default:
      return std::nullopt;
  }
}

}  // namespace

std::unique_ptr<FileAudioReader> FileAudioReader::open_if_any(const std::string& path) {
  quiet_libav();
  AVFormatContext* format = nullptr;
  const int opened = avformat_open_input(&format, path.c_str(), nullptr, nullptr);
  if (opened < 0)
    throw MediaError(fmt::format("cannot read '{}': {}", path, av_error_text(opened)));
  try {
    av_check(avformat_find_stream_info(format, nullptr), fmt::format("cannot probe '{}'", path));
    const int index = av_find_best_stream(format, AVMEDIA_TYPE_AUDIO, -1, -1, nullptr, 0);
    if (index < 0) {
      avformat_close_input(&format);
      return nullptr;
    }
    const AVCodecParameters* par = format->streams[index]->codecpar;
    const auto layout = pcm_layout(par->codec_id);
    const int channels = par->ch_layout.nb_channels;
    if (!layout || par->sample_rate != static_cast<int>(kAudioSampleRate) || channels < 1 ||
        channels > kMaxAudioChannels) {
      throw MediaError(fmt::format(
          "'{}' has {} audio, {} channels at {} Hz; hdstream carries PCM 16 or 24-bit at {} Hz, "
          "1 to {} channels, as stored (convert with ffmpeg -c:a pcm_s24le -ar 48000)",
          path, avcodec_get_name(par->codec_id), channels, par->sample_rate, kAudioSampleRate,
          kMaxAudioChannels));
    }
    const AudioFormat audio{static_cast<std::uint8_t>(channels), layout->bits, kAudioSampleRate};
    return std::unique_ptr<FileAudioReader>(
        new FileAudioReader(path, format, index, audio, layout->big_endian));
  } catch (...) {
    avformat_close_input(&format);
    throw;
  }
}

FileAudioReader::FileAudioReader(std::string path, AVFormatContext* format, int stream_index,
                                 AudioFormat audio, bool big_endian)
    : path_(std::move(path)),
      format_(format),
      packet_(av_packet_alloc()),
      stream_index_(stream_index),
      audio_(audio),
      big_endian_(big_endian) {}

FileAudioReader::~FileAudioReader() {
  av_packet_free(&packet_);
  avformat_close_input(&format_);
}

void FileAudioReader::read(std::uint32_t samples, std::vector<std::byte>& out) {
  const std::size_t wanted = std::size_t{samples} * audio_.bytes_per_sample();
  while (pending_.size() - pending_at_ < wanted && !at_end_) {
    av_packet_unref(packet_);
    const int result = av_read_frame(format_, packet_);
    if (result == AVERROR_EOF) {
      at_end_ = true;
      break;
    }
    av_check(result, fmt::format("cannot read the sound of '{}'", path_));
    if (packet_->stream_index != stream_index_) continue;
    pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(pending_at_));
    pending_at_ = 0;
    const auto* data = reinterpret_cast<const std::byte*>(packet_->data);
    pending_.insert(pending_.end(), data, data + packet_->size);
  }
  const std::size_t have = std::min(wanted, pending_.size() - pending_at_);
  const std::size_t at = out.size();
  out.resize(at + wanted, std::byte{0});  // silence past the end of the track
  std::copy_n(pending_.begin() + static_cast<std::ptrdiff_t>(pending_at_), have,
              out.begin() + static_cast<std::ptrdiff_t>(at));
  pending_at_ += have;
  if (big_endian_) {
    const std::size_t width = audio_.bits / 8u;
    for (std::size_t i = at; i + width <= at + have; i += width) {
      std::reverse(out.begin() + static_cast<std::ptrdiff_t>(i),
                   out.begin() + static_cast<std::ptrdiff_t>(i + width));
    }
  }
}

void FileAudioReader::rewind() {
  pending_.clear();
  pending_at_ = 0;
  at_end_ = false;
  if (av_seek_frame(format_, stream_index_, 0, AVSEEK_FLAG_BACKWARD) < 0) {
    throw MediaError(fmt::format("cannot go back to the start of the sound of '{}'", path_));
  }
}

}  // namespace hdstream
