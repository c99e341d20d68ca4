// The MPEG-2 4:2:2 video rate of `--mux ts` senders (mux/ts_encoder.hpp encodes at it).
//   const std::uint64_t rate = ts_video_rate_bps(options.rate_bps);  // --rate, or the default
#pragma once

#include <cstdint>
#include <optional>

namespace hdstream {

// MPEG-2 4:2:2 bit rate without --rate: 50 Mb/s, the rate of IMX/D-10, the I-frame-only MPEG-2
// 4:2:2 studio format this mirrors.
inline constexpr std::uint64_t kTsDefaultVideoRateBps = 50'000'000;
// 4:2:2 profile at high level allows 300 Mb/s; below ~10 Mb/s a 1080 I-frame no longer fits.
inline constexpr std::uint64_t kTsMinVideoRateBps = 10'000'000;
inline constexpr std::uint64_t kTsMaxVideoRateBps = 300'000'000;

// The video bit rate for --mux ts: --rate when the user gave one, clamped to the range above,
// else the default.
std::uint64_t ts_video_rate_bps(std::optional<std::uint64_t> requested_bps);

}  // namespace hdstream
