// Everything an acceptance run found, as its report shows it: parameters, the path as
// measured, the criteria, each phase's figures and verdicts, the sign-off block.
//   nlohmann::ordered_json doc = acceptance_json(result);   // docs/acceptance.schema.json
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "acceptance/criteria.hpp"
#include "acceptance/phase_figures.hpp"

namespace hdstream {

struct AcceptancePhase {
  PhaseFigures figures;
  double percent = 100;  // of the planned rate
  bool soak = false;
  bool interrupted = false;  // cut short by Ctrl-C: its figures cover what ran
  std::vector<CriterionResult> results;
  bool pass = false;
};

struct PathFact {
  std::string name;  // "reachable 10.0.0.2:9000", "RTT", "send buffer (this host)", ...
  std::string measured;
  bool ok = false;
};

struct SignOff {
  std::string engineer;
  std::string link_id;
  std::string text;
};

// A receiving end: the address fed, and the receiver as its HELLO_ACK named itself ("portland-rx
// (hdstream 0.1.0)"; empty until it answered, and from older receivers).
struct ReceiverInfo {
  std::string endpoint;
  std::string name;
};

// Adds `endpoint` once; a non-empty `name` fills in the one it had.
void note_receiver(std::vector<ReceiverInfo>& receivers, const std::string& endpoint,
                   const std::string& name = {});

struct AcceptanceResult {
  std::string destination;
  std::string started_utc;  // ISO 8601
  std::string host;         // this host's name: the sending end
  std::vector<ReceiverInfo> receivers;
  std::vector<std::pair<std::string, std::string>> parameters;
  std::vector<PathFact> path;
  AcceptanceCriteria criteria;
  std::vector<AcceptancePhase> phases;
  bool complete = false;  // every planned phase ran to its end (not interrupted)
  bool pass = false;      // complete, the path's checks and every criterion of every phase
  SignOff sign_off;
};

// The verdict of the run: complete, every path check ok, every phase's every criterion.
bool acceptance_verdict(const AcceptanceResult& result);

nlohmann::ordered_json acceptance_json(const AcceptanceResult& result);

}  // namespace hdstream
