// What a recording holds, read back with ffmpeg and ffprobe (independent readers of what
// hdstream wrote): its video packets as stored, each with its place on the timeline in frame
// periods and its MD5, and its packet count as ffprobe counts it.
//   auto packets = test::recorded_packets(dir / "feed0.mov", dir, 30000.0 / 1001);
//   long count = test::probed_packets(dir / "feed0.mov", dir);   // -1: unreadable
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/process.hpp"

namespace hdstream::test {

struct RecordedPacket {
  std::int64_t frame_index = 0;  // pts in frame periods from the file's time zero
  std::string md5;
  double pts_s = 0;  // the pts itself, in seconds
};

// The first video stream's packets, in file order, as ffmpeg -c copy -f framemd5 sees them
// (-copyts: at their own timestamps, not moved to start at 0).
// Empty if the file is unreadable.
inline std::vector<RecordedPacket> recorded_packets(const std::filesystem::path& file,
                                                    const std::filesystem::path& scratch,
                                                    double frames_per_second) {
  const auto out = scratch / (file.filename().string() + ".framemd5");
  const std::string command = "ffmpeg -v error -y -copyts -i '" + file.string() +
                              "' -map 0:v:0 -c copy -f framemd5 '" + out.string() + "'";
  if (std::system(command.c_str()) != 0) return {};
  std::vector<RecordedPacket> packets;
  double seconds_per_tick = 0;
  std::istringstream in(read_file(out));
  for (std::string line; std::getline(in, line);) {
    // "#tb 0: 1/30000": the time base of the pts column.
    if (line.rfind("#tb 0:", 0) == 0) {
      const auto slash = line.find('/');
      seconds_per_tick = std::stod(line.substr(6, slash - 6)) / std::stod(line.substr(slash + 1));
      continue;
    }
    if (line.empty() || line[0] == '#') continue;
    // stream_index, dts, pts, duration, size, hash
    std::vector<std::string> fields;
    std::istringstream columns(line);
    for (std::string field; std::getline(columns, field, ',');) fields.push_back(field);
    if (fields.size() < 6) return {};
    const double pts_s = std::stod(fields[2]) * seconds_per_tick;
    packets.push_back({std::llround(pts_s * frames_per_second),
                       fields[5].substr(fields[5].find_first_not_of(' ')), pts_s});
  }
  return packets;
}

// ffprobe's codec name and packet count for a file's first video stream ("" / -1 if unreadable).
inline std::pair<std::string, long> probe(const std::filesystem::path& file,
                                          const std::filesystem::path& scratch) {
  const auto out = scratch / (file.filename().string() + ".probe");
  const std::string command =
      "ffprobe -v error -count_packets -select_streams v:0 -show_entries "
      "stream=codec_name,nb_read_packets -of default=nw=1 '" +
      file.string() + "' > '" + out.string() + "' 2>/dev/null";
  if (std::system(command.c_str()) != 0) return {"", -1};
  std::map<std::string, std::string> fields;
  std::istringstream in(read_file(out));
  for (std::string line; std::getline(in, line);) {
    const auto eq = line.find('=');
    if (eq != std::string::npos) fields[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return {fields["codec_name"],
          fields.count("nb_read_packets") ? std::stol(fields["nb_read_packets"]) : -1};
}

// ffprobe's count of the first video stream's packets (-1 if the file is unreadable).
inline long probed_packets(const std::filesystem::path& file,
                           const std::filesystem::path& scratch) {
  return probe(file, scratch).second;
}

}  // namespace hdstream::test
