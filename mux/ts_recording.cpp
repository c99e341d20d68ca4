#include "mux/ts_recording.hpp"

#include <cstring>
#include <utility>

#include <fmt/format.h>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/channel_layout.h>
}

#include "common/log.hpp"
#include "media/av_formats.hpp"
#include "media/recording_layout.hpp"
#include "mux/av_error.hpp"

namespace hdstream {

TsRecording::TsRecording(std::string path, const AVStream& video, const AudioFormat& audio)
    : path_(std::move(path)), audio_(audio) {
  quiet_libav();
  try {
    av_check(avformat_alloc_output_context2(&format_, nullptr, nullptr, path_.c_str()),
             fmt::format("'{}': no container for that extension (use .mkv or .mov)", path_));
    packet_ = av_packet_alloc();
    AVStream* picture = avformat_new_stream(format_, nullptr);
    if (!packet_ || !picture) throw MediaError("out of memory creating a recording");
    av_check(avcodec_parameters_copy(picture->codecpar, video.codecpar),
             fmt::format("'{}': describe the video", path_));
    picture->codecpar->codec_tag = 0;  // the TS's tag means nothing in another container
    picture->time_base = video.time_base;
    picture->avg_frame_rate = video.avg_frame_rate;
    picture->r_frame_rate = video.r_frame_rate;
    input_time_base_num_ = video.time_base.num;
    input_time_base_den_ = video.time_base.den;
    if (audio.present()) {
      AVStream* sound = avformat_new_stream(format_, nullptr);
      if (!sound) throw MediaError("out of memory creating a recording");
      AVCodecParameters& par = *sound->codecpar;
      par.codec_type = AVMEDIA_TYPE_AUDIO;
      par.codec_id = audio.bits == 16 ? AV_CODEC_ID_PCM_S16LE : AV_CODEC_ID_PCM_S24LE;
      par.sample_rate = static_cast<int>(audio.sample_rate);
      av_channel_layout_default(&par.ch_layout, audio.channels);
      par.bits_per_coded_sample = audio.bits;
      par.block_align = static_cast<int>(audio.bytes_per_sample());
      par.bit_rate = std::int64_t{audio.sample_rate} * par.block_align * 8;
      sound->time_base = AVRational{1, static_cast<int>(audio.sample_rate)};
    }
    av_check(avio_open(&format_->pb, path_.c_str(), AVIO_FLAG_WRITE),
             fmt::format("open '{}'", path_));
    // A stream whose first decode timestamp is before its first picture's (B-frames) is shifted
    // with everything else, so the sound stays beside its picture.
    AVDictionary* options = nullptr;
    av_dict_set(&options, "avoid_negative_ts", "make_zero", 0);
    add_recording_layout(&options, *format_);  // readable after a crash
    const int rc = avformat_write_header(format_, &options);
    av_dict_free(&options);
    av_check(rc, fmt::format("start '{}' (does its container take {}?)", path_,
                             avcodec_get_name(video.codecpar->codec_id)));
  } catch (...) {
    release();
    throw;
  }
}

TsRecording::~TsRecording() {
  try {
    finish();
  } catch (const MediaError& error) {
    logger("ts")->error("{}", error.what());
  }
  release();
}

void TsRecording::release() {
  if (format_) {
    if (format_->pb) avio_closep(&format_->pb);
    avformat_free_context(std::exchange(format_, nullptr));
  }
  av_packet_free(&packet_);
}

bool TsRecording::write_video(const AVPacket& packet, std::int64_t origin) {
  if (finished_) return false;
  if (!keyed_ && !(packet.flags & AV_PKT_FLAG_KEY)) return false;
  keyed_ = true;
  av_check(av_packet_ref(packet_, &packet), fmt::format("'{}': copy a picture", path_));
  packet_->stream_index = 0;
  if (packet_->pts != AV_NOPTS_VALUE) packet_->pts -= origin;
  if (packet_->dts != AV_NOPTS_VALUE) packet_->dts -= origin;
  packet_->pos = -1;
  av_packet_rescale_ts(packet_, AVRational{input_time_base_num_, input_time_base_den_},
                       format_->streams[0]->time_base);
  const int rc = av_interleaved_write_frame(format_, packet_);
  av_packet_unref(packet_);
  av_check(rc, fmt::format("write '{}'", path_));
  return true;
}

void TsRecording::write_audio(std::span<const std::byte> pcm, std::int64_t sample_index) {
  if (finished_ || !audio_.present() || pcm.empty()) return;
  av_check(av_new_packet(packet_, static_cast<int>(pcm.size())),
           fmt::format("'{}': out of memory for the sound", path_));
  std::memcpy(packet_->data, pcm.data(), pcm.size());
  packet_->stream_index = 1;
  packet_->pts = packet_->dts = sample_index;
  packet_->duration = static_cast<std::int64_t>(pcm.size() / audio_.bytes_per_sample());
  packet_->flags |= AV_PKT_FLAG_KEY;
  av_packet_rescale_ts(packet_, AVRational{1, static_cast<int>(audio_.sample_rate)},
                       format_->streams[1]->time_base);
  const int rc = av_interleaved_write_frame(format_, packet_);
  av_packet_unref(packet_);
  av_check(rc, fmt::format("write '{}'", path_));
}

void TsRecording::finish() {
  if (finished_ || !format_) return;
  finished_ = true;
  av_check(av_write_trailer(format_), fmt::format("finish '{}'", path_));
}

}  // namespace hdstream
