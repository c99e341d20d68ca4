// Shared helpers for the security and fault tests that run the real hdstream binary.
#pragma once

#include <sys/stat.h>

#include <csignal>
#include <fstream>
#include <optional>
#include <string>

#include "tests/support/eventually.hpp"
#include "tests/support/process.hpp"
#include "tests/support/stats_lines.hpp"

namespace hdstream::test {

// A cumulative field ("frames", "drops") of one stream in the last interval line of a
// JSON-lines text.
inline std::optional<long> stream_value(const std::string& text, int stream,
                                        const std::string& field) {
  std::optional<long> value;
  for (const auto& line : json_lines(text)) {
    if (line.at("type") == "interval" && line.at("stream") == stream)
      value = line.at(field).get<long>();
  }
  return value;
}

inline std::optional<long> stream_frames(const std::string& text, int stream) {
  return stream_value(text, stream, "frames");
}

// Waits until `stream`'s frame count in `text()` has grown by at least `by` from now.
template <typename Text>
bool frames_grow(Text text, int stream, long by,
                 std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
  const long start = stream_frames(text(), stream).value_or(0);
  return eventually([&] { return stream_frames(text(), stream).value_or(0) >= start + by; },
                    timeout);
}

inline std::filesystem::path write_key_file(const std::filesystem::path& dir,
                                            const std::string& name, char digit,
                                            mode_t mode = 0600) {
  auto path = dir / name;
  std::ofstream(path) << std::string(64, digit) << "\n";
  ::chmod(path.c_str(), mode);
  return path;
}

inline bool contains(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

}  // namespace hdstream::test
