// The JSON spelling of stats fields, shared by the JSON-lines report (stats/report_json.hpp), the
// /stats.json document (stats/snapshot_json.hpp) and the bench report, so a field is named
// and rounded the same way wherever it appears.
//   auto line = nlohmann::ordered_json{{"type", "interval"}};  append_counters(line, stream);
#pragma once

#include <nlohmann/json.hpp>

#include "stats/snapshot.hpp"

namespace hdstream {

// Three decimals are plenty for rates and times, and keep JSON lines short.
double round3(double value);

// bytes, frames, mbps, drops, checksum_errors, jitter_ms, rtt_ms, retransmits: appended in
// that order after what `object` already holds.
void append_counters(nlohmann::ordered_json& object, const StreamSnapshot& stream);

// What the receiver last reported (FEEDBACK): bytes, frames, drops, checksum_errors,
// jitter_ms, fps, latency_ms, age_ms, reports; appended in that order.
void append_far_end(nlohmann::ordered_json& object, const FarEndSnapshot& far_end);

// A protected feed (two legs): legs_up, protected, skew_ms; appended in that order.
void append_protection(nlohmann::ordered_json& object, const ProtectionSnapshot& protection);

// One leg of a protected feed: leg ("a" | "b"), state, bytes, mbps, frames, drops, rtt_ms,
// retransmits, only_frames; appended in that order.
void append_leg(nlohmann::ordered_json& object, const LegSnapshot& leg);
std::string_view leg_json_name(std::uint8_t leg);  // 0: "a", 1: "b"

// A feed's sound levels, a pair an object, dBFS to a tenth:
// [{"peak_dbfs":-6.0,"rms_dbfs":-9.0,"hold_dbfs":-6.0},...].
nlohmann::ordered_json audio_levels_json(const SoundLevels& sound);

}  // namespace hdstream
