#include "stats/snapshot_json.hpp"

#include <limits>
#include <type_traits>
#include <utility>

#include <fmt/format.h>

#include "common/printable.hpp"
#include "common/units.hpp"
#include "stats/json_fields.hpp"

namespace hdstream {
namespace {

// Deeper than any document hdstream writes (8 levels): a hostile host's 8 MiB of "[" would
// otherwise become millions of nested values in the monitor's memory.
constexpr int kMaxDocumentDepth = 16;
// A host's, endpoint's or transport's name as read from another host: longer is cut.
constexpr std::size_t kMaxName = 256;

// A field's value, of the type hdstream writes it as: an integer field must hold an integer that
// fits, never a float or a value nlohmann would wrap or truncate on conversion.
template <typename T>
T field(const nlohmann::json& object, const char* name, T fallback = T{}) {
  auto it = object.find(name);
  if (it == object.end() || it->is_null()) return fallback;
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    const bool fits =
        it->is_number_unsigned()
            ? it->get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<T>::max())
        : it->is_number_integer() ? std::in_range<T>(it->get<std::int64_t>())
                                  : false;
    if (!fits) {
      throw StatsDocumentError(fmt::format(
          "malformed /stats.json: '{}' is not an integer within {}..{}: {}", name,
          std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), printable(it->dump(), 40)));
    }
  }
  return it->get<T>();
}

// A decoded feed's "sound" object: at most 16 channels, a level per pair of them (the panel
// draws a meter per level: a document that claims more is malformed, not trusted).
void parse_sound(const nlohmann::json& object, StreamSnapshot& s) {
  if (!object.is_object()) throw StatsDocumentError("\"sound\" is not an object");
  const auto channels = field<unsigned>(object, "channels");
  if (channels < 1 || channels > kMaxSoundChannels) {
    throw StatsDocumentError(fmt::format("a feed with {} channels of sound", channels));
  }
  s.audio_channels = static_cast<std::uint8_t>(channels);
  const auto& levels = object.at("levels");
  if (!levels.is_array() || levels.size() != (channels + 1) / 2) {
    throw StatsDocumentError(
        fmt::format("{} channels of sound need {} levels", channels, (channels + 1) / 2));
  }
  for (const auto& level : levels) {
    s.sound.pairs.push_back(PairLevels{field<double>(level, "peak_dbfs"),
                                       field<double>(level, "rms_dbfs"),
                                       field<double>(level, "hold_dbfs")});
  }
  s.sound.silent = field<bool>(object, "silent");
  if (auto offset = object.find("av_offset_ms"); offset != object.end() && !offset->is_null()) {
    s.av_offset_ms = offset->get<double>();
  }
  s.audio_heard = field<bool>(object, "heard", true);
}

// A protected feed's "protection" object. Its legs are A and B, each at most once: the panel
// and /metrics index them by leg, so a document that says otherwise is malformed, not trusted.
ProtectionSnapshot parse_protection(const nlohmann::json& object) {
  ProtectionSnapshot p;
  p.present = true;
  p.legs_up = field<std::uint32_t>(object, "legs_up");
  p.protected_frames = field<std::uint64_t>(object, "protected");
  p.skew_ms = field<double>(object, "skew_ms");
  const auto legs = object.find("legs");
  if (legs == object.end() || legs->is_null()) return p;
  if (!legs->is_array()) throw StatsDocumentError("malformed /stats.json: legs is not a list");
  for (const auto& item : *legs) {
    if (!item.is_object())
      throw StatsDocumentError("malformed /stats.json: a leg is not an object");
    const auto name = field<std::string>(item, "leg");
    if (name != leg_json_name(0) && name != leg_json_name(1)) {
      // Not echoed: a stranger's text has no place in a one-line error.
      throw StatsDocumentError("malformed /stats.json: a leg other than \"a\" or \"b\"");
    }
    LegSnapshot leg;
    leg.leg = name == leg_json_name(0) ? 0 : 1;
    for (const auto& seen : p.legs) {
      if (seen.leg == leg.leg) {
        throw StatsDocumentError(fmt::format("malformed /stats.json: leg '{}' twice", name));
      }
    }
    leg.state =
        stream_state_from_string(field<std::string>(item, "state")).value_or(StreamState::invalid);
    leg.bytes = field<std::uint64_t>(item, "bytes");
    leg.mbps = field<double>(item, "mbps");
    leg.frames = field<std::uint64_t>(item, "frames");
    leg.drops = field<std::uint64_t>(item, "drops");
    leg.rtt_ms = field<double>(item, "rtt_ms");
    leg.retransmits = field<std::uint64_t>(item, "retransmits");
    leg.only_frames = field<std::uint64_t>(item, "only_frames");
    p.legs.push_back(leg);
  }
  return p;
}

}  // namespace

void fill_rates(Snapshot& now, const Snapshot& before) {
  const double interval_s = now.t - before.t;
  if (interval_s <= 0 || now.streams.size() != before.streams.size()) return;
  for (std::size_t i = 0; i < now.streams.size(); ++i) {
    StreamSnapshot& stream = now.streams[i];
    stream.mbps = megabits_per_second(stream.bytes - before.streams[i].bytes, interval_s);
    // A protected feed's legs too, each against the same leg then (a leg may have appeared).
    for (LegSnapshot& leg : stream.protection.legs) {
      for (const LegSnapshot& then : before.streams[i].protection.legs) {
        if (then.leg == leg.leg && leg.bytes >= then.bytes) {
          leg.mbps = megabits_per_second(leg.bytes - then.bytes, interval_s);
        }
      }
    }
  }
}

std::optional<StreamState> stream_state_from_string(std::string_view name) {
  for (auto state :
       {StreamState::waiting, StreamState::running, StreamState::finished, StreamState::failed}) {
    if (to_string(state) == name) return state;
  }
  return std::nullopt;
}

nlohmann::ordered_json snapshot_json(const LabeledSnapshot& source) {
  const Snapshot& snapshot = source.snapshot;
  auto streams = nlohmann::ordered_json::array();
  for (const auto& s : snapshot.streams) {
    nlohmann::ordered_json stream = {
        {"stream", s.stream},
        {"transport", s.transport},
        {"state", to_string(s.state)},
    };
    append_counters(stream, s);
    stream["planned_bps"] = s.planned_bps;
    stream["latency_ms"] = round3(s.latency_ms);
    stream["latency_budget_ms"] = s.latency_budget_ms;
    stream["first_frame_ns"] = s.first_frame_ns;
    stream["last_frame_ns"] = s.last_frame_ns;
    if (s.far_end.valid) append_far_end(stream["far_end"], s.far_end);
    if (s.media) {
      stream["picture"] = {{"decoded", s.frames_decoded}, {"frozen", s.frozen}, {"black", s.black}};
      // (Levels for each pair of its channels, or none: a snapshot between a session's start and
      // its meters' is left out rather than published inconsistent.)
      if (s.audio_channels > 0 && s.sound.pairs.size() == (s.audio_channels + 1u) / 2) {
        stream["sound"] = {
            {"channels", s.audio_channels},
            {"levels", audio_levels_json(s.sound)},
            {"silent", s.sound.silent},
            {"av_offset_ms", s.av_offset_ms ? nlohmann::ordered_json(round3(*s.av_offset_ms))
                                            : nlohmann::ordered_json()},
            {"heard", s.audio_heard}};
      }
    }
    if (s.protection.present) {
      auto& protection = stream["protection"];
      append_protection(protection, s.protection);
      auto legs = nlohmann::ordered_json::array();
      for (const auto& leg : s.protection.legs) {
        nlohmann::ordered_json object = nlohmann::ordered_json::object();
        append_leg(object, leg);
        legs.push_back(std::move(object));
      }
      protection["legs"] = std::move(legs);
    }
    streams.push_back(std::move(stream));
  }
  return {
      {"host", source.host},
      {"role", to_string(snapshot.role)},
      {"endpoint", source.endpoint},
      {"t", round3(snapshot.t)},
      {"mbps", round3(snapshot.aggregate_mbps())},
      {"drops", snapshot.aggregate_drops()},
      {"streams", std::move(streams)},
  };
}

nlohmann::ordered_json stats_document(std::string_view host,
                                      std::span<const LabeledSnapshot> sources) {
  auto snapshots = nlohmann::ordered_json::array();
  for (const auto& source : sources) snapshots.push_back(snapshot_json(source));
  return {{"version", kStatsDocumentVersion}, {"host", host}, {"snapshots", std::move(snapshots)}};
}

std::vector<LabeledSnapshot> parse_stats_document(std::string_view text) {
  try {
    const auto doc =
        nlohmann::json::parse(text, [](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
          if (depth > kMaxDocumentDepth) {
            throw StatsDocumentError(
                fmt::format("malformed /stats.json: nested deeper than {}", kMaxDocumentDepth));
          }
          return true;
        });
    if (!doc.is_object() || field<int>(doc, "version") != kStatsDocumentVersion) {
      throw StatsDocumentError("not a version 1 hdstream /stats.json document");
    }
    std::vector<LabeledSnapshot> out;
    for (const auto& item : doc.at("snapshots")) {
      LabeledSnapshot source;
      // The names a remote host gives are shown in terminals, logs and panels: printable ASCII
      // only, so that no escape sequence in them reaches a terminal.
      source.host =
          printable(field<std::string>(item, "host", field<std::string>(doc, "host")), kMaxName);
      source.endpoint = printable(field<std::string>(item, "endpoint"), kMaxName);
      const auto role = field<std::string>(item, "role");
      if (role != "send" && role != "recv") {
        throw StatsDocumentError("unknown role '" + printable(role, kMaxName) + "'");
      }
      source.snapshot.role = role == "send" ? Role::send : Role::recv;
      source.snapshot.t = field<double>(item, "t");
      for (const auto& js : item.at("streams")) {
        StreamSnapshot s;
        s.stream = field<std::uint16_t>(js, "stream");
        s.transport = printable(field<std::string>(js, "transport"), kMaxName);
        s.state = stream_state_from_string(field<std::string>(js, "state"))
                      .value_or(StreamState::invalid);
        s.bytes = field<std::uint64_t>(js, "bytes");
        s.frames = field<std::uint64_t>(js, "frames");
        s.mbps = field<double>(js, "mbps");
        s.drops = field<std::uint64_t>(js, "drops");
        s.checksum_errors = field<std::uint64_t>(js, "checksum_errors");
        s.jitter_ms = field<double>(js, "jitter_ms");
        s.rtt_ms = field<double>(js, "rtt_ms");
        s.retransmits = field<std::uint64_t>(js, "retransmits");
        s.planned_bps = field<std::uint64_t>(js, "planned_bps");
        s.latency_ms = field<double>(js, "latency_ms");
        s.latency_budget_ms = field<std::uint32_t>(js, "latency_budget_ms");
        s.first_frame_ns = field<std::int64_t>(js, "first_frame_ns");
        s.last_frame_ns = field<std::int64_t>(js, "last_frame_ns");
        if (auto far = js.find("far_end"); far != js.end() && far->is_object()) {
          s.far_end.valid = true;
          s.far_end.bytes = field<std::uint64_t>(*far, "bytes");
          s.far_end.frames = field<std::uint64_t>(*far, "frames");
          s.far_end.drops = field<std::uint64_t>(*far, "drops");
          s.far_end.checksum_errors = field<std::uint64_t>(*far, "checksum_errors");
          s.far_end.jitter_ms = field<double>(*far, "jitter_ms");
          s.far_end.fps = field<double>(*far, "fps");
          s.far_end.latency_ms = field<double>(*far, "latency_ms");
          s.far_end.age_ms = field<double>(*far, "age_ms");
          s.far_end.reports = field<std::uint64_t>(*far, "reports");
          s.far_end.extended = field<bool>(*far, "extended");
          s.far_end.late_frames = field<std::uint64_t>(*far, "late_frames");
          s.far_end.loss_events = field<std::uint64_t>(*far, "loss_events");
          s.far_end.longest_loss_run = field<std::uint64_t>(*far, "longest_loss_run");
          s.far_end.duplicate_chunks = field<std::uint64_t>(*far, "duplicate_chunks");
          s.far_end.out_of_order_chunks = field<std::uint64_t>(*far, "out_of_order_chunks");
        }
        if (auto picture = js.find("picture"); picture != js.end() && picture->is_object()) {
          s.media = true;
          s.frames_decoded = field<std::uint64_t>(*picture, "decoded");
          s.frozen = field<bool>(*picture, "frozen");
          s.black = field<bool>(*picture, "black");
        }
        if (auto sound = js.find("sound"); sound != js.end() && s.media) parse_sound(*sound, s);
        if (auto protection = js.find("protection");
            protection != js.end() && protection->is_object()) {
          s.protection = parse_protection(*protection);
        }
        source.snapshot.streams.push_back(std::move(s));
      }
      out.push_back(std::move(source));
    }
    return out;
  } catch (const nlohmann::json::exception& error) {
    throw StatsDocumentError(fmt::format("malformed /stats.json: {}", error.what()));
  }
}

}  // namespace hdstream
