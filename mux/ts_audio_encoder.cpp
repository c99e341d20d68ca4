#include "mux/ts_audio_encoder.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

#include <fmt/format.h>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/channel_layout.h>
#include <libavutil/samplefmt.h>
#include <libswresample/swresample.h>
}

#include "media/av_formats.hpp"
#include "mux/av_error.hpp"
#include "protocol/audio_block.hpp"

namespace hdstream {

TsAudioEncoder::TsAudioEncoder(const AudioFormat& audio, TsAudio codec) : audio_(audio) {
  quiet_libav();
  const bool aac = codec == TsAudio::aac;
  const AVCodec* found = avcodec_find_encoder(aac ? AV_CODEC_ID_AAC : AV_CODEC_ID_S302M);
  if (!found) {
    throw MediaError(fmt::format("this FFmpeg build has no {} encoder", to_string(codec)));
  }
  try {
    encoder_ = avcodec_alloc_context3(found);
    input_ = av_frame_alloc();
    packet_ = av_packet_alloc();
    if (!encoder_ || !input_ || !packet_) throw MediaError("out of memory creating the encoder");
    const AVSampleFormat integers = audio.bits == 16 ? AV_SAMPLE_FMT_S16 : AV_SAMPLE_FMT_S32;
    av_channel_layout_default(&encoder_->ch_layout, audio.channels);
    encoder_->sample_rate = static_cast<int>(audio.sample_rate);
    encoder_->time_base = AVRational{1, static_cast<int>(audio.sample_rate)};
    if (aac) {
      encoder_->sample_fmt = AV_SAMPLE_FMT_FLTP;
      encoder_->bit_rate = static_cast<std::int64_t>(ts_audio_rate_bps(audio, codec));
    } else {
      // 302M: the samples as carried. libavcodec marks its encoder experimental.
      encoder_->sample_fmt = integers;
      encoder_->bits_per_raw_sample = audio.bits;
      encoder_->strict_std_compliance = FF_COMPLIANCE_EXPERIMENTAL;
    }
    av_check(avcodec_open2(encoder_, found, nullptr),
             fmt::format("open the {} encoder for {} channels of {}-bit sound", to_string(codec),
                         audio.channels, audio.bits));
    input_->format = integers;
    av_channel_layout_copy(&input_->ch_layout, &encoder_->ch_layout);
    input_->sample_rate = encoder_->sample_rate;
    if (aac) {
      fifo_ = av_audio_fifo_alloc(integers, audio.channels, encoder_->frame_size * 2);
      chunk_ = av_frame_alloc();
      planar_ = av_frame_alloc();
      if (!fifo_ || !chunk_ || !planar_) throw MediaError("out of memory creating the AAC encoder");
      chunk_->format = integers;
      av_channel_layout_copy(&chunk_->ch_layout, &encoder_->ch_layout);
      chunk_->nb_samples = encoder_->frame_size;
      av_check(av_frame_get_buffer(chunk_, 0), "allocate the AAC encoder's samples");
      planar_->format = AV_SAMPLE_FMT_FLTP;
      av_channel_layout_copy(&planar_->ch_layout, &encoder_->ch_layout);
      planar_->sample_rate = encoder_->sample_rate;
      planar_->nb_samples = encoder_->frame_size;
      av_check(av_frame_get_buffer(planar_, 0), "allocate the AAC encoder's samples");
      av_check(swr_alloc_set_opts2(&convert_, &encoder_->ch_layout, AV_SAMPLE_FMT_FLTP,
                                   encoder_->sample_rate, &encoder_->ch_layout, integers,
                                   encoder_->sample_rate, 0, nullptr),
               "convert the sound for AAC");
      av_check(swr_init(convert_), "convert the sound for AAC");
    }
  } catch (...) {
    release();
    throw;
  }
}

TsAudioEncoder::~TsAudioEncoder() {
  release();
}

void TsAudioEncoder::release() {
  swr_free(&convert_);
  if (fifo_) av_audio_fifo_free(std::exchange(fifo_, nullptr));
  av_frame_free(&planar_);
  av_frame_free(&chunk_);
  av_frame_free(&input_);
  av_packet_free(&packet_);
  avcodec_free_context(&encoder_);
}

// 16-bit samples are the encoder's as they are; 24-bit ones go to the top of 32-bit integers
// (where libavcodec keeps them), the low byte zero: nothing is rounded.
void TsAudioEncoder::unpack(std::span<const std::byte> pcm) {
  const std::size_t width = audio_.bits / 8u;
  const std::size_t values = pcm.size() / width;
  av_frame_unref(input_);
  input_->format = audio_.bits == 16 ? AV_SAMPLE_FMT_S16 : AV_SAMPLE_FMT_S32;
  av_channel_layout_copy(&input_->ch_layout, &encoder_->ch_layout);
  input_->sample_rate = encoder_->sample_rate;
  input_->nb_samples = static_cast<int>(values / audio_.channels);
  av_check(av_frame_get_buffer(input_, 0), "allocate the sound's samples");
  if (width == 2) {
    std::memcpy(input_->data[0], pcm.data(), values * 2);
    return;
  }
  auto* out = reinterpret_cast<std::int32_t*>(input_->data[0]);
  for (std::size_t i = 0; i < values; ++i) out[i] = pcm_sample(pcm.data() + i * width, width) * 256;
}

void TsAudioEncoder::send(AVFrame* frame, const Packets& out) {
  av_check(avcodec_send_frame(encoder_, frame), "encode the sound");
  for (;;) {
    const int rc = avcodec_receive_packet(encoder_, packet_);
    if (rc == AVERROR(EAGAIN) || rc == AVERROR_EOF) return;
    av_check(rc, "encode the sound");
    out(*packet_);
    av_packet_unref(packet_);
  }
}

void TsAudioEncoder::encode(std::span<const std::byte> pcm, std::uint64_t first_sample,
                            const Packets& out) {
  // Samples before the end of those already encoded (a frame sent twice, a step back) would
  // go back in time in the TS: only what is new goes.
  const std::size_t sample_bytes = audio_.bytes_per_sample();
  if (first_sample < next_sample_) {
    const std::uint64_t overlap = next_sample_ - first_sample;
    if (overlap >= pcm.size() / sample_bytes) return;
    pcm = pcm.subspan(overlap * sample_bytes);
    first_sample = next_sample_;
  }
  if (pcm.empty()) return;
  next_sample_ = first_sample + pcm.size() / sample_bytes;
  unpack(pcm);
  if (!fifo_) {
    input_->pts = static_cast<std::int64_t>(first_sample);
    send(input_, out);
    return;
  }
  const auto first = static_cast<std::int64_t>(first_sample);
  const int queued = av_audio_fifo_size(fifo_);
  if (queued == 0) {
    fifo_pts_ = first;
  } else if (const std::int64_t gap = first - (fifo_pts_ + queued); gap != 0) {
    // Frames that never came: up to a second of them is silence in the packets, so that they
    // keep the feed's clock (1601/1602 samples a frame never divide into AAC's 1024); a longer
    // jump ends the partial packet, padded, and the packets start again here.
    if (gap <= kAudioSampleRate) {
      queue_silence(static_cast<int>(gap), out);
    } else {
      queue_silence(encoder_->frame_size - queued, out);
      fifo_pts_ = first;
    }
  }
  if (av_audio_fifo_write(fifo_, reinterpret_cast<void**>(input_->data), input_->nb_samples) <
      input_->nb_samples) {
    throw MediaError("out of memory queueing the sound for AAC");
  }
  while (av_audio_fifo_size(fifo_) >= encoder_->frame_size) encode_fifo(encoder_->frame_size, out);
}

// `samples` of silence into the fifo, whole packets encoded as they fill.
void TsAudioEncoder::queue_silence(int samples, const Packets& out) {
  while (samples > 0) {
    const int n = std::min(samples, encoder_->frame_size);
    av_samples_set_silence(chunk_->data, 0, n, audio_.channels,
                           static_cast<AVSampleFormat>(chunk_->format));
    if (av_audio_fifo_write(fifo_, reinterpret_cast<void**>(chunk_->data), n) < n) {
      throw MediaError("out of memory queueing the sound for AAC");
    }
    samples -= n;
    while (av_audio_fifo_size(fifo_) >= encoder_->frame_size) {
      encode_fifo(encoder_->frame_size, out);
    }
  }
}

// `n` samples from the fifo, converted to float planar, as one AAC packet.
void TsAudioEncoder::encode_fifo(int n, const Packets& out) {
  av_check(av_frame_make_writable(planar_), "reuse the AAC encoder's samples");
  av_audio_fifo_read(fifo_, reinterpret_cast<void**>(chunk_->data), n);
  const std::uint8_t** in = const_cast<const std::uint8_t**>(chunk_->data);
  av_check(swr_convert(convert_, planar_->data, n, in, n), "convert the sound for AAC");
  planar_->nb_samples = n;
  planar_->pts = fifo_pts_;
  fifo_pts_ += n;
  send(planar_, out);
}

void TsAudioEncoder::finish(const Packets& out) {
  if (fifo_ && av_audio_fifo_size(fifo_) > 0) encode_fifo(av_audio_fifo_size(fifo_), out);
  send(nullptr, out);
}

}  // namespace hdstream
