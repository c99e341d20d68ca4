// Prometheus text exposition (format 0.0.4) of the latest snapshots: base units (bytes,
// seconds), `_total` counters, labels limited to role, stream and transport, and leg ("A" | "B")
// on a protected feed's per-leg families.
//   std::string body = prometheus_text(sources);   // served at /metrics
#pragma once

#include <span>
#include <string>

#include "stats/labeled_snapshot.hpp"

namespace hdstream {

inline constexpr const char* kPrometheusContentType = "text/plain; version=0.0.4; charset=utf-8";

std::string prometheus_text(std::span<const LabeledSnapshot> sources);

}  // namespace hdstream
