// The /stats.json document: every stream's cumulative counters, rates and far-end view, per
// role, as served by --metrics-listen and read back by `hdstream monitor` (docs/telemetry.md).
//   auto doc = stats_document("studio-a", sources);   // nlohmann::ordered_json
//   std::vector<LabeledSnapshot> back = parse_stats_document(doc.dump());  // throws
#pragma once

#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "stats/labeled_snapshot.hpp"

namespace hdstream {

inline constexpr int kStatsDocumentVersion = 1;

nlohmann::ordered_json snapshot_json(const LabeledSnapshot& source);
nlohmann::ordered_json stats_document(std::string_view host,
                                      std::span<const LabeledSnapshot> sources);

// Thrown for text that is not a /stats.json document of a version we read.
class StatsDocumentError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
std::vector<LabeledSnapshot> parse_stats_document(std::string_view text);

std::optional<StreamState> stream_state_from_string(std::string_view name);

}  // namespace hdstream
