#include "mux/ts_stage.hpp"

#include <fmt/format.h>

#include "common/units.hpp"
#include "media/media_error.hpp"
#include "media/video_decoder.hpp"
#include "mux/ts_encoder.hpp"
#include "protocol/audio_block.hpp"
#include "transport/srt/srt_socket.hpp"

namespace hdstream {
namespace {

// TS and PES headers, PAT/PMT and PCR add a few percent to the video rate.
constexpr double kTsOverhead = 1.1;

StageError stage_error(const MediaError& error, bool frame_only) {
  return StageError(fmt::format("--mux ts: {}", error.what()), frame_only);
}

}  // namespace

TsStage::TsStage(const FeedDescriptor& feed, const TsSettings& settings)
    : feed_(feed), settings_(settings) {}

TsStage::~TsStage() = default;

std::uint64_t TsStage::planned_rate_bps() const {
  return settings_.video_rate_bps + ts_audio_rate_bps(feed_.audio, settings_.audio);
}

std::uint64_t TsStage::wire_rate_bps() const {
  return static_cast<std::uint64_t>(kTsOverhead * static_cast<double>(planned_rate_bps()));
}

int TsStage::message_bytes() const {
  return kSrtTsPayloadBytes;
}

std::string TsStage::describe() const {
  const std::string sound =
      feed_.audio.present() ? fmt::format(", {} channels of sound as {}", feed_.audio.channels,
                                          settings_.audio == TsAudio::aac ? "AAC" : "SMPTE 302M")
                            : "";
  return fmt::format("MPEG-TS ({}x{} {:.2f} fps as MPEG-2 4:2:2 I-frames at {}{})", feed_.width,
                     feed_.height, feed_.frames_per_second(),
                     format_rate(static_cast<double>(settings_.video_rate_bps)), sound);
}

void TsStage::prepare() {
  try {
    decoder_ = std::make_unique<VideoDecoder>(feed_);
  } catch (const MediaError& error) {
    throw stage_error(error, /*frame_only=*/false);
  }
}

void TsStage::open(Send send) {
  try {
    encoder_ = std::make_unique<TsEncoder>(feed_, settings_, std::move(send));
  } catch (const MediaError& error) {
    throw stage_error(error, /*frame_only=*/false);
  }
}

std::uint64_t TsStage::push(const Frame& frame) {
  if (!first_seq_) first_seq_ = frame.seq;
  const auto frame_index = static_cast<std::int64_t>(frame.seq - *first_seq_);
  std::span<const std::byte> coded = frame.data;
  const std::uint64_t before = encoder_->bytes_written();
  if (feed_.audio.present()) {
    const AudioBlock block = split_audio_block(frame.data, feed_, frame.seq);
    if (!block.error.empty()) throw StageError("--mux ts: " + block.error, /*frame_only=*/true);
    try {
      // The sound goes even when its picture does not decode: a spoilt picture is one frame
      // missing, a gap in the sound would be heard.
      encoder_->encode_sound(block.pcm, block.first_sample - audio_sample_at(feed_, *first_seq_));
    } catch (const MediaError& error) {
      throw stage_error(error, /*frame_only=*/false);
    }
    coded = block.picture;
  }
  const Picture* picture = nullptr;
  try {
    picture = &decoder_->decode(coded);
  } catch (const MediaError& error) {
    throw stage_error(error, /*frame_only=*/true);  // the decoder stays usable
  }
  try {
    encoder_->encode(*picture, frame_index);
    return encoder_->bytes_written() - before;
  } catch (const MediaError& error) {
    throw stage_error(error, /*frame_only=*/false);
  }
}

std::uint64_t TsStage::finish() {
  if (!encoder_) return 0;
  try {
    return encoder_->finish();
  } catch (const MediaError& error) {
    throw stage_error(error, /*frame_only=*/false);
  }
}

}  // namespace hdstream
