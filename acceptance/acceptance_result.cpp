#include "acceptance/acceptance_result.hpp"

#include <algorithm>
#include <cmath>

#include "common/provenance.hpp"

namespace hdstream {
namespace {

double rounded(double value, int decimals = 3) {
  const double scale = std::pow(10.0, decimals);
  return std::round(value * scale) / scale;
}

nlohmann::ordered_json criterion_json(const CriterionResult& r) {
  return {{"name", r.name},     {"measured", r.measured}, {"threshold", r.threshold},
          {"margin", r.margin}, {"pass", r.pass},         {"judged", r.judged}};
}

nlohmann::ordered_json second_json(const SecondFigures& s) {
  return {{"t", rounded(s.t)},
          {"frames_offered", s.frames_offered},
          {"frames_lost", s.frames_lost},
          {"rate_mbps", rounded(s.rate_mbps)},
          {"delay_ms", s.delay_samples > 0 ? nlohmann::ordered_json(rounded(s.delay_ms))
                                           : nlohmann::ordered_json()},
          {"errored", s.errored},
          {"severely_errored", s.severely_errored}};
}

nlohmann::ordered_json phase_json(const AcceptancePhase& phase) {
  const PhaseFigures& f = phase.figures;
  nlohmann::ordered_json out{
      {"name", f.name},
      {"kind", phase.soak ? "soak" : "step"},
      {"interrupted", phase.interrupted},
      {"percent", rounded(phase.percent)},
      {"offered_mbps", rounded(f.offered_mbps)},
      {"seconds", rounded(f.seconds)},
      {"rate_mbps", rounded(f.rate_mbps)},
      {"delay_ms",
       f.delay_measured ? nlohmann::ordered_json(rounded(f.delay_ms)) : nlohmann::ordered_json()},
      {"delay_basis", f.delay_basis == DelayBasis::one_way ? "one_way" : "half_rtt"},
      {"delay_variation_ms",
       {{"p50", rounded(f.delay_variation_ms.p50)},
        {"p95", rounded(f.delay_variation_ms.p95)},
        {"p99", rounded(f.delay_variation_ms.p99)},
        {"max", rounded(f.delay_variation_ms.max)}}},
      {"delay_samples", f.delay_samples},
      {"jitter_ms", rounded(f.jitter_ms)},
      {"frames_offered", f.frames_offered},
      {"frames_delivered", f.frames_delivered},
      {"frames_lost", f.frames_lost},
      {"loss_ratio", f.loss_ratio},
      {"loss_events", f.loss_events},
      {"longest_loss_run", f.longest_loss_run},
      {"late_frames", f.late_frames},
      {"out_of_order_chunks", f.out_of_order_chunks},
      {"duplicate_chunks", f.duplicate_chunks},
      {"retransmits", f.retransmits},
      {"retransmission_ratio", f.retransmission_ratio},
      {"errored_seconds", f.errored_seconds},
      {"severely_errored_seconds", f.severely_errored_seconds},
      {"availability", f.availability},
      {"samples_complete", f.samples_complete},
      {"pass", phase.pass}};
  out["criteria"] = nlohmann::ordered_json::array();
  for (const auto& r : phase.results) out["criteria"].push_back(criterion_json(r));
  out["by_second"] = nlohmann::ordered_json::array();
  for (const auto& s : f.by_second) out["by_second"].push_back(second_json(s));
  return out;
}

}  // namespace

bool acceptance_verdict(const AcceptanceResult& result) {
  if (!result.complete || result.phases.empty()) return false;
  for (const auto& fact : result.path) {
    if (!fact.ok) return false;
  }
  for (const auto& phase : result.phases) {
    if (!phase.pass) return false;
  }
  return true;
}

void note_receiver(std::vector<ReceiverInfo>& receivers, const std::string& endpoint,
                   const std::string& name) {
  auto known = std::ranges::find(receivers, endpoint, &ReceiverInfo::endpoint);
  if (known == receivers.end()) {
    receivers.push_back({endpoint, name});
  } else if (!name.empty()) {
    known->name = name;
  }
}

nlohmann::ordered_json acceptance_json(const AcceptanceResult& result) {
  nlohmann::ordered_json out{{"type", "acceptance"},
                             {"schema", "hdstream-acceptance/2"},
                             {"hdstream", hdstream_version()},
                             {"destination", result.destination},
                             {"started_utc", result.started_utc},
                             {"host", result.host},
                             {"receivers", nlohmann::ordered_json::array()},
                             {"complete", result.complete},
                             {"verdict", result.pass ? "pass" : "fail"}};
  for (const auto& receiver : result.receivers) {
    nlohmann::ordered_json entry{{"endpoint", receiver.endpoint}, {"name", nullptr}};
    if (!receiver.name.empty()) entry["name"] = receiver.name;
    out["receivers"].push_back(std::move(entry));
  }
  out["parameters"] = nlohmann::ordered_json::object();
  for (const auto& [key, value] : result.parameters) out["parameters"][key] = value;
  out["path"] = nlohmann::ordered_json::array();
  for (const auto& fact : result.path) {
    out["path"].push_back({{"name", fact.name}, {"measured", fact.measured}, {"ok", fact.ok}});
  }
  const AcceptanceCriteria& c = result.criteria;
  out["criteria"] = {{"min_rate_fraction", c.min_rate_fraction},
                     {"max_delay_ms", c.max_delay_ms},
                     {"max_delay_variation_ms", c.max_delay_variation_ms},
                     {"max_loss_ratio", c.max_loss_ratio},
                     {"min_availability", c.min_availability},
                     {"severe_loss_fraction", c.severe_loss_fraction}};
  out["phases"] = nlohmann::ordered_json::array();
  for (const auto& phase : result.phases) out["phases"].push_back(phase_json(phase));
  out["sign_off"] = {{"engineer", result.sign_off.engineer},
                     {"link_id", result.sign_off.link_id},
                     {"text", result.sign_off.text}};
  return out;
}

}  // namespace hdstream
