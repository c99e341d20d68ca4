#include "mux/ts_rate.hpp"

#include <algorithm>

#include "common/log.hpp"
#include "common/units.hpp"

namespace hdstream {

std::uint64_t ts_video_rate_bps(std::optional<std::uint64_t> requested_bps) {
  if (!requested_bps) return kTsDefaultVideoRateBps;
  const std::uint64_t rate = std::clamp(*requested_bps, kTsMinVideoRateBps, kTsMaxVideoRateBps);
  if (rate != *requested_bps) {
    logger("ts")->warn("--mux ts: MPEG-2 4:2:2 at {} (--rate {} is outside {}..{})",
                       format_rate(static_cast<double>(rate)),
                       format_rate(static_cast<double>(*requested_bps)),
                       format_rate(static_cast<double>(kTsMinVideoRateBps)),
                       format_rate(static_cast<double>(kTsMaxVideoRateBps)));
  }
  return rate;
}

}  // namespace hdstream
