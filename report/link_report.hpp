// Writes a link report: parameters, per-feed and aggregate figures (with a protected feed's
// legs, when there is one), the throughput plot (PNG) and the verdict. `.html` gives one
// self-contained file (PNG embedded); anything else gives Markdown with the PNG written beside it.
//   write_link_report("portland.md", {.title = "hdstream send", .parameters = ..., ...});
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "report/link_recorder.hpp"
#include "stats/snapshot.hpp"
#include "stats/summary.hpp"

namespace hdstream {

// An extra table, e.g. the pre-flight checks; rows[0] is the header.
struct ReportTable {
  std::string title;
  std::vector<std::vector<std::string>> rows;
};

struct LinkReportInput {
  std::string title;
  std::vector<std::pair<std::string, std::string>> parameters;
  std::vector<ThroughputPoint> series;
  Snapshot last;
  Summary summary;
  double planned_mbps = 0;
  std::vector<ReportTable> tables;
};

// Throws std::runtime_error naming the path when it cannot be written.
void write_link_report(const std::filesystem::path& path, const LinkReportInput& input);

}  // namespace hdstream
