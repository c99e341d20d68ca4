// Reading hdstream's JSON stats lines back in tests.
//   auto summary = test::find_line(text, "summary");  EXPECT_EQ(summary["drops"], 0);
#pragma once

#include <algorithm>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hdstream::test {

// Every complete line of `text`, parsed; a malformed complete line throws. A last line without
// its newline is one the process is still writing (stdio flushes a full buffer mid-line) and is
// left for the next read.
inline std::vector<nlohmann::json> json_lines(const std::string& text) {
  std::vector<nlohmann::json> lines;
  std::size_t begin = 0;
  for (auto end = text.find('\n'); end != std::string::npos; end = text.find('\n', begin)) {
    if (end > begin) lines.push_back(nlohmann::json::parse(text.begin() + begin, text.begin() + end));
    begin = end + 1;
  }
  return lines;
}

// The last line of a given type, if any.
inline std::optional<nlohmann::json> find_line(const std::string& text, const std::string& type) {
  std::optional<nlohmann::json> found;
  for (auto& line : json_lines(text)) {
    if (line.at("type") == type) found = line;
  }
  return found;
}

// Every complete line of a stats file that may still be being written: a half-written last line
// is skipped, not an error.
inline std::vector<nlohmann::json> read_stats_file(const std::string& path) {
  std::ifstream in(path);
  std::vector<nlohmann::json> lines;
  for (std::string line; std::getline(in, line);) {
    auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_object()) lines.push_back(std::move(j));
  }
  return lines;
}

// The last of `lines` of a given type, if any.
inline std::optional<nlohmann::json> last_line(const std::vector<nlohmann::json>& lines,
                                               const std::string& type) {
  std::optional<nlohmann::json> found;
  for (const auto& j : lines) {
    if (j.value("type", "") == type) found = j;
  }
  return found;
}

// `field` of every "interval" line from `from_s` seconds on that has carried frames (a feed
// still connecting reports zeros), in the order written.
inline std::vector<double> interval_values(const std::string& text, const std::string& field,
                                           double from_s = 0) {
  std::vector<double> values;
  for (auto& line : json_lines(text)) {
    if (line.at("type") != "interval" || line.value("t", 0.0) < from_s) continue;
    if (line.value("frames", 0ULL) == 0) continue;
    values.push_back(line.at(field).get<double>());
  }
  return values;
}

// The median of `values` (0 when empty): a live figure's typical reading, which a single
// sample delayed on a shared machine does not move.
inline double median(std::vector<double> values) {
  if (values.empty()) return 0;
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

}  // namespace hdstream::test
