#include "stats/json_fields.hpp"

#include <cmath>

namespace hdstream {

double round3(double value) {
  return std::round(value * 1000.0) / 1000.0;
}

void append_counters(nlohmann::ordered_json& object, const StreamSnapshot& s) {
  object["bytes"] = s.bytes;
  object["frames"] = s.frames;
  object["mbps"] = round3(s.mbps);
  object["drops"] = s.drops;
  object["checksum_errors"] = s.checksum_errors;
  object["jitter_ms"] = round3(s.jitter_ms);
  object["rtt_ms"] = round3(s.rtt_ms);
  object["retransmits"] = s.retransmits;
}

void append_far_end(nlohmann::ordered_json& object, const FarEndSnapshot& f) {
  object["bytes"] = f.bytes;
  object["frames"] = f.frames;
  object["drops"] = f.drops;
  object["checksum_errors"] = f.checksum_errors;
  object["jitter_ms"] = round3(f.jitter_ms);
  object["fps"] = round3(f.fps);
  object["latency_ms"] = round3(f.latency_ms);
  object["age_ms"] = round3(f.age_ms);
  object["reports"] = f.reports;
  // FEEDBACK extension 1: absent for an older receiver, so its line reads as before.
  if (!f.extended) return;
  object["extended"] = true;
  object["late_frames"] = f.late_frames;
  object["loss_events"] = f.loss_events;
  object["longest_loss_run"] = f.longest_loss_run;
  object["duplicate_chunks"] = f.duplicate_chunks;
  object["out_of_order_chunks"] = f.out_of_order_chunks;
  // Not transits_dropped: it only says whether take_transits() kept up, and a run that never
  // takes them (every ordinary send) would show it growing for nothing.
}

void append_protection(nlohmann::ordered_json& object, const ProtectionSnapshot& p) {
  object["legs_up"] = p.legs_up;
  object["protected"] = p.protected_frames;
  object["skew_ms"] = round3(p.skew_ms);
}

std::string_view leg_json_name(std::uint8_t leg) {
  return leg == 0 ? "a" : "b";
}

void append_leg(nlohmann::ordered_json& object, const LegSnapshot& leg) {
  object["leg"] = leg_json_name(leg.leg);
  object["state"] = to_string(leg.state);
  object["bytes"] = leg.bytes;
  object["mbps"] = round3(leg.mbps);
  object["frames"] = leg.frames;
  object["drops"] = leg.drops;
  object["rtt_ms"] = round3(leg.rtt_ms);
  object["retransmits"] = leg.retransmits;
  object["only_frames"] = leg.only_frames;
}

nlohmann::ordered_json audio_levels_json(const SoundLevels& sound) {
  auto pairs = nlohmann::ordered_json::array();
  const auto tenth = [](double dbfs) { return std::round(dbfs * 10) / 10; };
  for (const PairLevels& pair : sound.pairs) {
    pairs.push_back({{"peak_dbfs", tenth(pair.peak_dbfs)},
                     {"rms_dbfs", tenth(pair.rms_dbfs)},
                     {"hold_dbfs", tenth(pair.hold_dbfs)}});
  }
  return pairs;
}

}  // namespace hdstream
