// The MessageStage of `send --transport srt --mux ts`: none of our feed codecs has a TS stream
// type, so each frame is decoded (DNxHD) or unpacked (v210, UYVY) by media/'s VideoDecoder and
// re-encoded by TsEncoder as I-frame-only MPEG-2 4:2:2 in MPEG-TS, 1316-byte messages
// (transport/SrtMessageSender carries them). media's MediaError becomes StageError: a frame that
// does not decode costs that frame; an encoder or send failure ends the feed.
// A feed's sound goes beside its pictures (TsSettings::audio: 302M or AAC).
//   auto stage = std::make_unique<TsStage>(feed, TsSettings{ts_video_rate_bps(std::nullopt)});
#pragma once

#include <memory>
#include <optional>

#include "mux/ts_audio.hpp"
#include "protocol/handshake.hpp"
#include "transport/message_stage.hpp"

namespace hdstream {

class TsEncoder;
class VideoDecoder;

class TsStage : public MessageStage {
 public:
  // `feed` must be video (dnxhd, v210 or uyvy), its sound one ts_audio_problem() accepts;
  // settings.video_rate_bps is the MPEG-2 rate (ts_video_rate_bps()).
  TsStage(const FeedDescriptor& feed, const TsSettings& settings);
  ~TsStage() override;

  std::uint64_t planned_rate_bps() const override;
  std::uint64_t wire_rate_bps() const override;
  int message_bytes() const override;
  std::string describe() const override;
  void prepare() override;
  void open(Send send) override;
  std::uint64_t push(const Frame& frame) override;
  std::uint64_t finish() override;

 private:
  FeedDescriptor feed_;
  TsSettings settings_;
  std::optional<std::uint64_t> first_seq_;  // the stream's time origin: its first frame
  std::unique_ptr<VideoDecoder> decoder_;
  std::unique_ptr<TsEncoder> encoder_;
};

}  // namespace hdstream
