#include "mux/ts_audio.hpp"

#include <fmt/format.h>

namespace hdstream {

std::string_view to_string(TsAudio codec) {
  return codec == TsAudio::aac ? "aac" : "302m";
}

std::optional<TsAudio> ts_audio_from_string(std::string_view name) {
  if (name == "302m" || name == "s302m") return TsAudio::s302m;
  if (name == "aac") return TsAudio::aac;
  return std::nullopt;
}

namespace {

bool aac_carries(unsigned channels) {
  return channels >= 1 && channels <= 8 && channels != 7;
}

}  // namespace

std::optional<std::string> ts_audio_problem(const AudioFormat& audio, TsAudio codec) {
  if (!audio.present()) return std::nullopt;
  const unsigned channels = audio.channels;
  const bool s302m_carries = channels % 2 == 0 && channels <= 8;
  if (codec == TsAudio::s302m ? s302m_carries : aac_carries(channels)) return std::nullopt;
  const std::string instead = codec == TsAudio::s302m && aac_carries(channels)
                                  ? "--ts-audio aac carries it"
                                  : "hdstream's own framing (--mux none) carries up to 16";
  return fmt::format("--mux ts: {} carries {} channels and this feed has {}; {}",
                     codec == TsAudio::s302m ? "SMPTE 302M" : "AAC",
                     codec == TsAudio::s302m ? "2, 4, 6 or 8" : "1 to 6 or 8", channels, instead);
}

std::uint64_t ts_audio_rate_bps(const AudioFormat& audio, TsAudio codec) {
  if (!audio.present()) return 0;
  const std::uint64_t channels = audio.channels;
  if (codec == TsAudio::aac) return 64'000 * channels;
  return std::uint64_t{kAudioSampleRate} * channels * (audio.bits + 4u);
}

}  // namespace hdstream
