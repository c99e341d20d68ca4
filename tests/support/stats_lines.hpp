// Reading hdstream's JSON stats lines back in tests.
//   auto summary = test::find_line(text, "summary");  EXPECT_EQ(summary["drops"], 0);
#pragma once

#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hdstream::test {

inline std::vector<nlohmann::json> json_lines(const std::string& text) {
  std::vector<nlohmann::json> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) lines.push_back(nlohmann::json::parse(line));
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

}  // namespace hdstream::test
