// How a feed's sound goes into `--mux ts` (decided here, libav-free, so `send` can refuse a
// feed before it loads the media module): SMPTE 302M, the PCM that broadcast TS gear expects
// (the default: the samples as carried, 16 or 24 bits), or AAC-LC where `--ts-audio aac` asks
// (a few hundred kb/s instead of ~10 Mb/s for 8 channels, for a link that cannot carry PCM).
//   TsAudio codec = *ts_audio_from_string("aac");
//   if (auto problem = ts_audio_problem(feed.audio, codec)) throw UsageError(*problem);
//   std::uint64_t bps = ts_audio_rate_bps(feed.audio, codec);
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "mux/ts_rate.hpp"
#include "protocol/handshake.hpp"

namespace hdstream {

enum class TsAudio : std::uint8_t { s302m = 0, aac = 1 };

std::string_view to_string(TsAudio codec);
std::optional<TsAudio> ts_audio_from_string(std::string_view name);

// Why this feed's sound cannot go into a TS as `codec`, in one line naming the option to fix;
// nullopt when it can (or when the feed has no sound). 302M carries 2, 4, 6 or 8 channels;
// libavcodec's AAC encoder 1 to 6 or 8.
std::optional<std::string> ts_audio_problem(const AudioFormat& audio, TsAudio codec);

// The audio elementary stream's bit rate (302M: 48 kHz x channels x (bits + 4) of AES3
// framing; AAC: 64 kb/s a channel). 0 without sound.
std::uint64_t ts_audio_rate_bps(const AudioFormat& audio, TsAudio codec);

// What `--mux ts` makes of a feed.
struct TsSettings {
  std::uint64_t video_rate_bps = kTsDefaultVideoRateBps;  // ts_video_rate_bps()
  TsAudio audio = TsAudio::s302m;
};

}  // namespace hdstream
