// Turns send options plus presets into a concrete plan: CLI > environment > --config > user >
// system > installed presets, then built-in defaults.
//   SendPlan plan = plan_send(options, load_presets(options.common.config_file));
#pragma once

#include <vector>

#include "app/options.hpp"
#include "presets/presets.hpp"
#include "transport/feed_request.hpp"

namespace hdstream {

struct SendPlan {
  SendOptions options;  // with preset values filled in where the user gave none
  DestinationPreset destination;
  FormatPreset format;
  std::vector<Endpoint> endpoints;  // one per feed

  // --rate sizes synthetic frames; a media format runs at its own rate.
  std::uint64_t rate_per_feed_bps() const {
    return format.feed.codec == Codec::synthetic ? options.rate_bps : format.feed.bit_rate_bps;
  }
  double planned_mbps() const {
    return static_cast<double>(rate_per_feed_bps()) * static_cast<double>(options.streams) / 1e6;
  }
};

// The plan as "parameter, value" pairs for reports.
std::vector<std::pair<std::string, std::string>> describe(const SendPlan& plan);

// What every feed of the plan asks of its transport; the caller sets the destination, stream id
// and feed descriptor of each (SenderGroup). Reads the srt passphrase: throws UsageError.
FeedRequest feed_request(const SendPlan& plan);

// Throws PresetError / EndpointError / UsageError with one line naming what to fix.
SendPlan plan_send(const SendOptions& options, const PresetStore& store);

}  // namespace hdstream
