#include "app/send_plan.hpp"

#include <fmt/format.h>

#include "app/session_key.hpp"
#include "app/srt_settings.hpp"
#include "app/usage_error.hpp"
#include "common/units.hpp"
#include "media/formats.hpp"
#include "pipeline/media_sources.hpp"
#include "transport/tcp_tuning.hpp"

namespace hdstream {
namespace {

// Sets `field` from the first preset value present, unless the user set the option.
template <typename T, typename... Sources>
void fill(const SendOptions& options, const char* option, T& field, const Sources&... sources) {
  if (options.common.explicit_options.count(option)) return;
  bool done = false;
  auto take = [&](const auto& source) {
    if (!done && source) {
      field = static_cast<T>(*source);
      done = true;
    }
  };
  (take(sources), ...);
}

// Where a value was set: "path:line", or "presets" when the origin is unknown.
template <typename Preset>
std::string origin_of(const Preset& preset, std::string_view key) {
  const auto found = preset.origins.find(key);
  return found == preset.origins.end() ? std::string("presets") : found->second;
}

// Who chose the transport, for an error about it: "" (the command line, or the default), or
// "; destination 'showsrt' says so (cfg.toml:3)".
std::string transport_origin(const SendOptions& o, const ProfilePreset& profile,
                             const DestinationPreset& d) {
  if (o.common.explicit_options.count("transport") > 0) return "";
  if (profile.transport) {
    return fmt::format(": profile '{}' says so ({})", profile.name,
                       origin_of(profile, "transport"));
  }
  if (d.transport) {
    return fmt::format(": destination '{}' says so ({})", d.name, origin_of(d, "transport"));
  }
  return ", the default";
}

// --conns, the wire and what rides on it, against the transport (`who` says who chose it, as
// transport_origin does).
void check_wire(const SendOptions& o, const FormatPreset& format, const std::string& who) {
  if (o.connections > 0 && o.transport == TransportKind::tcp &&
      o.common.explicit_options.count("conns") > 0) {
    throw UsageError(fmt::format(
        "--conns: only applies to --transport mtcp or srt (the transport is tcp{})", who));
  }
  if (auto problem = wire_problem(Wire{o.transport, o.mux})) {
    throw UsageError(
        fmt::format("{} (the transport is {}{})", *problem, to_string(o.transport), who));
  }
  if (!o.srt_fec.empty() && o.transport != TransportKind::srt) {
    throw UsageError(
        fmt::format("--srt-fec: only applies to --transport srt (the transport is {}{})",
                    to_string(o.transport), who));
  }
  if (o.mux != Mux::ts) return;
  // Plain MPEG-TS has no HELLO to name a leg: its receivers could not merge two paths.
  if (!o.dest_b.empty()) {
    throw UsageError("--dest-b: two paths need hdstream's own framing, not --mux ts");
  }
  if (o.connections > 1) {
    throw UsageError("--conns: MPEG-TS over SRT is one connection; stripes need --mux none");
  }
  if (!is_video(format.feed.codec)) {
    throw UsageError(
        fmt::format("--mux ts: format '{}' is not video; pick a video --format (dnxhd220, sdi270, "
                    "uyvy1080, v210-1080p60)",
                    format.name));
  }
}

}  // namespace

void plan_key(SendOptions& o, const DestinationPreset& d) {
  if (!o.common.key_file.empty()) {
    decide_session_key(o.common, o.transport, o.common.key_file, "--key-file");
  } else if (d.key_file) {
    decide_session_key(
        o.common, o.transport, *d.key_file,
        fmt::format("destination '{}' key_file ({})", d.name, origin_of(d, "key_file")));
  } else {
    decide_session_key(o.common, o.transport, "", "");
  }
}

SendPlan plan_send(const SendOptions& options, const PresetStore& store) {
  SendPlan plan;
  plan.options = options;
  SendOptions& o = plan.options;

  ProfilePreset profile;
  if (!o.profile.empty()) profile = resolve_profile(store, o.profile);
  std::string dest = o.dest;
  if (dest.empty()) dest = profile.destination.value_or("");
  if (dest.empty()) throw UsageError("--dest is required (HOST:PORT or a destination preset)");
  o.dest = dest;
  plan.destination = resolve_destination(store, dest);
  const DestinationPreset& d = plan.destination;

  fill(o, "streams", o.streams, profile.streams, d.streams);
  fill(o, "rate", o.rate_bps, profile.rate_bps, d.rate_bps);
  fill(o, "format", o.format, profile.format, d.format);
  fill(o, "transport", o.transport, profile.transport, d.transport);
  fill(o, "rtt", o.expected_rtt, d.rtt);
  fill(o, "latency", o.latency, d.latency);
  fill(o, "cc", o.congestion_control, d.cc);
  // A preset's conns belong to the transport that preset names (an mtcp destination's
  // sub-connections do not stripe an srt feed; srt stripes only when asked for); a preset that
  // names no transport gives its conns to whichever is chosen.
  if (o.common.explicit_options.count("conns") == 0) {
    const auto owned =
        [&](const std::optional<std::uint32_t>& conns,
            const std::optional<TransportKind>& own) -> std::optional<std::uint32_t> {
      if (!conns || (own && *own != o.transport)) return std::nullopt;
      return conns;
    };
    fill(o, "conns", o.connections, owned(profile.conns, profile.transport),
         owned(d.conns, d.transport));
  }
  o.congestion_control = choose_congestion_control(o.congestion_control, o.expected_rtt);
  if (o.common.explicit_options.count("latency") == 0 && d.latency) o.latency_given = true;

  // Now that the transport is known, whatever depends on it.
  plan.format = resolve_format(store, o.format);
  check_wire(o, plan.format, transport_origin(o, profile, d));
  plan_key(o, d);
  for (std::size_t i = 0; i < o.streams; ++i) plan.endpoints.push_back(d.endpoint_for(i));
  if (!o.dest_b.empty()) {
    const DestinationPreset path_b = resolve_destination(store, o.dest_b);
    for (std::size_t i = 0; i < o.streams; ++i) plan.endpoints_b.push_back(path_b.endpoint_for(i));
  } else if (!d.hosts_b.empty()) {
    for (std::size_t i = 0; i < o.streams; ++i) plan.endpoints_b.push_back(d.endpoint_b_for(i));
  }
  plan.source_a = d.bind_a.value_or("");
  plan.source_b = d.bind_b.value_or("");
  return plan;
}

std::vector<FeedSetup> plan_feeds(const SendPlan& plan) {
  const SendOptions& o = plan.options;
  FeedSetup base;
  base.wire = Wire{o.transport, o.mux};
  if (o.mux == Mux::ts) {
    // --mux ts re-encodes as MPEG-2 4:2:2: --rate sets its bit rate only when the user gave it.
    base.wire.ts.video_rate_bps = ts_video_rate_bps(o.common.explicit_options.count("rate") > 0
                                                        ? std::optional<std::uint64_t>(o.rate_bps)
                                                        : std::nullopt);
    base.wire.ts.audio = o.ts_audio;
  }
  FeedRequest& request = base.request;
  request.transport = o.transport;
  request.chunk_bytes = o.chunk_bytes;
  request.connections = o.connections;
  request.expected_rtt = o.expected_rtt;
  request.latency = o.latency;
  request.latency_given = o.latency_given;
  request.congestion_control = o.congestion_control;
  request.pacing_factor = o.pacing_factor;
  request.connect_patience = o.connect_patience;
  request.reconnect_patience = o.reconnect_patience;
  if (o.transport == TransportKind::srt) request.srt = srt_settings(o);
  request.key = o.common.key;
  base.format = plan.format.feed;
  base.rate_bps = o.rate_bps;
  base.duration = o.duration;
  base.spread_over = o.align_frames ? 0 : o.streams;

  std::vector<std::string> sources, sounds;
  try {
    sources = per_feed_specs(o.sources, o.streams, plan.format.default_source);
    sounds = per_feed_specs(o.audio_sources, o.streams, "", "--audio-source");
  } catch (const SpecError& error) {
    throw UsageError(error.what());
  }
  std::vector<FeedSetup> feeds(o.streams, base);
  for (std::size_t i = 0; i < feeds.size(); ++i) {
    feeds[i].request.destination = plan.endpoints.at(i);
    if (!plan.endpoints_b.empty()) feeds[i].request.destination_b = plan.endpoints_b.at(i);
    feeds[i].request.source = plan.source_a;
    feeds[i].request.source_b = plan.source_b;
    feeds[i].request.stream_id = static_cast<std::uint16_t>(i);
    feeds[i].source = sources.at(i);
    feeds[i].sound = {sounds.at(i), o.audio_channels};
  }
  return feeds;
}

std::vector<std::pair<std::string, std::string>> describe(const SendPlan& plan) {
  const SendOptions& o = plan.options;
  std::vector<std::pair<std::string, std::string>> rows{
      {"destination", plan.destination.name},
      {"description", plan.destination.description},
      {"first feed address", plan.endpoints.empty() ? "" : plan.endpoints.front().to_string()},
      {"path B (protection)",
       plan.endpoints_b.empty() ? "none" : plan.endpoints_b.front().to_string()},
      {"feeds", std::to_string(o.streams)},
      {"format", plan.format.name},
      {"rate per feed", format_rate(static_cast<double>(plan.rate_per_feed_bps()))},
      {"planned aggregate", format_rate(plan.planned_mbps() * 1e6)},
      {"transport", std::string(to_string(o.transport))},
      {"congestion control", o.congestion_control},
      {"expected RTT", format_duration(o.expected_rtt)},
      {"latency budget", format_duration(o.latency)},
      {"chunk size", std::to_string(o.chunk_bytes) + " bytes"},
  };
  if (plan.destination.link_rate_bps) {
    rows.emplace_back("link rate",
                      format_rate(static_cast<double>(*plan.destination.link_rate_bps)));
  }
  if (plan.destination.mtu) rows.emplace_back("MTU", std::to_string(*plan.destination.mtu));
  if (plan.destination.distance_km) {
    rows.emplace_back("distance", fmt::format("{:g} km", *plan.destination.distance_km));
  }
  return rows;
}

}  // namespace hdstream
