// Typed presets on top of the layered TOML store: destinations, feed formats, profiles.
//   PresetStore store = load_presets(config);
//   DestinationPreset dest = resolve_destination(store, "portland");   // or "HOST:PORT"
//   Endpoint feed3 = dest.endpoint_for(3);
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/endpoint.hpp"
#include "presets/preset_store.hpp"
#include "protocol/handshake.hpp"

namespace hdstream {

// A destination's acceptance criteria, `[destinations.NAME.sla]` (`hdstream check
// --acceptance`); unset keys keep acceptance/criteria.hpp's defaults.
struct SlaPreset {
  std::optional<double> min_rate_fraction;    // min_rate = "99%": of the rate offered
  std::optional<std::uint64_t> min_rate_bps;  // min_rate = "265M": per feed, at 100 %
  std::optional<std::chrono::nanoseconds> max_delay;
  std::optional<std::chrono::nanoseconds> max_delay_variation;
  std::optional<double> max_loss_ratio;    // 1e-5
  std::optional<double> min_availability;  // 0.999 or "99.9%"
  std::optional<double> severely_errored;  // "30%": a second losing more is severely errored
};

struct DestinationPreset {
  std::string name;  // the preset name, or the HOST:PORT text given
  std::string description;
  std::vector<std::string> hosts;  // feed i -> hosts[i]; one host takes every feed
  // A second path (two-path protection): feed i also goes to hosts_b[i] (or the only one) at
  // `port`; empty: one path. bind_a / bind_b: the local address each path sends from.
  std::vector<std::string> hosts_b;
  std::optional<std::string> bind_a;
  std::optional<std::string> bind_b;
  std::uint16_t port = 9000;
  std::optional<TransportKind> transport;
  std::optional<std::uint32_t> conns;
  std::optional<std::uint32_t> streams;
  std::optional<std::uint64_t> rate_bps;
  std::optional<std::string> format;
  std::optional<std::chrono::nanoseconds> rtt;
  std::optional<std::uint64_t> link_rate_bps;
  std::optional<std::uint32_t> mtu;
  std::optional<double> distance_km;
  std::optional<std::chrono::nanoseconds> latency;
  std::optional<std::string> key_file;
  std::optional<std::string> cc;
  SlaPreset sla;
  // Where each key was set, "path:line", for errors that name it.
  std::map<std::string, std::string, std::less<>> origins;

  // Where feed `stream` goes: hosts[stream] (or the only host) at `port`; on path B, from
  // hosts_b (which must not be empty).
  Endpoint endpoint_for(std::size_t stream) const;
  Endpoint endpoint_b_for(std::size_t stream) const;
};

struct FormatPreset {
  std::string name;
  std::string description;
  FeedDescriptor feed;  // bit_rate_bps is the nominal rate; --rate overrides it for synthetic
  std::string default_source;  // --source when none is given (pipeline/media_sources.hpp)
};

struct ProfilePreset {
  std::string name;
  std::string description;
  std::optional<std::string> destination;
  std::optional<std::string> format;
  std::optional<std::uint32_t> streams;
  std::optional<std::uint64_t> rate_bps;
  std::optional<TransportKind> transport;
  std::optional<std::uint32_t> conns;
  std::map<std::string, std::string, std::less<>> origins;  // as DestinationPreset's
};

// Typed views of store entries; a bad value throws PresetError "FILE:LINE: key 'rtt': why".
DestinationPreset destination_from(const PresetEntry& entry);
FormatPreset format_from(const PresetEntry& entry);
ProfilePreset profile_from(const PresetEntry& entry);

// `text` is HOST:PORT (an ad-hoc destination) or a destination preset name. Throws
// EndpointError with one line naming the known presets when it is neither.
DestinationPreset resolve_destination(const PresetStore& store, std::string_view text);
FormatPreset resolve_format(const PresetStore& store, std::string_view name);
ProfilePreset resolve_profile(const PresetStore& store, std::string_view name);

}  // namespace hdstream
