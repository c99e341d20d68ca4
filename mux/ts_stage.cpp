#include "mux/ts_stage.hpp"

#include <fmt/format.h>

#include "common/units.hpp"
#include "media/media_error.hpp"
#include "media/video_decoder.hpp"
#include "mux/ts_encoder.hpp"
#include "transport/srt_socket.hpp"

namespace hdstream {
namespace {

// TS and PES headers, PAT/PMT and PCR add a few percent to the video rate.
constexpr double kTsOverhead = 1.1;

StageError stage_error(const MediaError& error, bool frame_only) {
  return StageError(fmt::format("--mux ts: {}", error.what()), frame_only);
}

}  // namespace

TsStage::TsStage(const FeedDescriptor& feed, std::uint64_t video_rate_bps)
    : feed_(feed), video_rate_bps_(video_rate_bps) {}

TsStage::~TsStage() = default;

std::uint64_t TsStage::wire_rate_bps() const {
  return static_cast<std::uint64_t>(kTsOverhead * static_cast<double>(video_rate_bps_));
}

int TsStage::message_bytes() const {
  return kSrtTsPayloadBytes;
}

std::string TsStage::describe() const {
  return fmt::format("MPEG-TS ({}x{} {:.2f} fps as MPEG-2 4:2:2 I-frames at {})", feed_.width,
                     feed_.height, feed_.frames_per_second(),
                     format_rate(static_cast<double>(video_rate_bps_)));
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
    encoder_ = std::make_unique<TsEncoder>(feed_, video_rate_bps_, std::move(send));
  } catch (const MediaError& error) {
    throw stage_error(error, /*frame_only=*/false);
  }
}

std::uint64_t TsStage::push(const Frame& frame) {
  const Picture* picture = nullptr;
  try {
    picture = &decoder_->decode(frame.data);
  } catch (const MediaError& error) {
    throw stage_error(error, /*frame_only=*/true);  // the decoder stays usable
  }
  try {
    return encoder_->encode(*picture);
  } catch (const MediaError& error) {
    throw stage_error(error, /*frame_only=*/false);
  }
}

std::uint64_t TsStage::finish() {
  try {
    return encoder_->finish();
  } catch (const MediaError& error) {
    throw stage_error(error, /*frame_only=*/false);
  }
}

}  // namespace hdstream
