// Turns send options plus presets into a concrete plan: CLI > environment > --config > user >
// system > installed presets, then built-in defaults.
//   SendPlan plan = plan_send(options, load_presets(options.common.config_file));
#pragma once

#include <vector>

#include "app/options.hpp"
#include "pipeline/media_sources.hpp"
#include "presets/presets.hpp"
#include "transport/factory.hpp"
#include "transport/feed_request.hpp"

namespace hdstream {

struct SendPlan {
  SendOptions options;  // with preset values filled in where the user gave none
  DestinationPreset destination;
  FormatPreset format;
  std::vector<Endpoint> endpoints;  // one per feed
  // Each feed's second path (--dest-b, or the destination's hosts_b); empty: one path.
  std::vector<Endpoint> endpoints_b;
  std::string source_a, source_b;  // the destination's bind_a / bind_b; empty: the kernel's

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

// One feed of a send, planned: what it asks of its transport, over which wire, where its
// frames come from and how they are paced. SenderGroup makes the feed's source, transport and
// paced pipeline of it.
struct FeedSetup {
  FeedRequest request;  // destination and stream id set; its feed becomes the source's own
  Wire wire;
  std::string source;          // source spec (pipeline/media_sources.hpp); unpaced: unused
  SoundSpec sound;             // --audio-source, --audio-channels
  FeedDescriptor format;       // the format preset's feed, which a source may refine
  std::uint64_t rate_bps = 0;  // --rate: sizes synthetic frames
  std::chrono::nanoseconds duration{0};  // how long to send; 0: until stopped
  // Paced feeds start stream_id/spread_over of a frame period late (0: all on the frame
  // boundary, like genlocked sources).
  std::size_t spread_over = 0;
};

// Every feed of the plan (throws UsageError naming what to fix).
std::vector<FeedSetup> plan_feeds(const SendPlan& plan);

// The key once the transport is known (app/session_key): --key-file (or HDSTREAM_KEY_FILE), else
// the destination's key_file, named with its file:line in errors.
void plan_key(SendOptions& options, const DestinationPreset& destination);

// Throws PresetError / EndpointError / UsageError with one line naming what to fix. Everything
// that depends on the transport is decided here, after the presets that may name it.
SendPlan plan_send(const SendOptions& options, const PresetStore& store);

}  // namespace hdstream
