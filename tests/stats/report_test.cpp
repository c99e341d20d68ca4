#include "stats/report.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "stats/report_json.hpp"
#include "stats/summary.hpp"

namespace hdstream {
namespace {

std::vector<std::string> keys_of(const nlohmann::ordered_json& object) {
  std::vector<std::string> keys;
  for (const auto& item : object.items()) keys.push_back(item.key());
  return keys;
}

StreamSnapshot stream(std::uint16_t id, std::uint64_t frames, std::uint64_t frame_bytes) {
  StreamSnapshot s;
  s.stream = id;
  s.transport = "tcp";
  s.state = StreamState::finished;
  s.frames = frames;
  s.bytes = frames * frame_bytes;
  s.planned_bps = 270'000'000;
  s.first_frame_ns = 1'000'000'000;
  // frames at 29.97 fps: n frames span n-1 periods.
  s.last_frame_ns =
      s.first_frame_ns + static_cast<std::int64_t>((frames - 1) * 1001.0 / 30000 * 1e9);
  return s;
}

Snapshot five_feeds() {
  Snapshot snapshot;
  snapshot.t = 10.0;
  snapshot.role = Role::recv;
  for (std::uint16_t i = 0; i < 5; ++i) snapshot.streams.push_back(stream(i, 300, 1'126'125));
  return snapshot;
}

TEST(Report, IntervalLinesHaveExactlyTheBriefsSchema) {
  const Snapshot snapshot = five_feeds();
  EXPECT_EQ(keys_of(interval_json(snapshot, snapshot.streams[0])),
            (std::vector<std::string>{"type", "t", "role", "stream", "transport", "bytes", "frames",
                                      "mbps", "drops", "checksum_errors", "jitter_ms", "rtt_ms",
                                      "retransmits"}));
  EXPECT_EQ(keys_of(aggregate_json(snapshot)),
            (std::vector<std::string>{"type", "t", "role", "streams", "mbps", "drops"}));
  EXPECT_EQ(keys_of(summary_json(summarize(snapshot))),
            (std::vector<std::string>{"type", "role", "streams", "duration_s", "bytes", "frames",
                                      "mbps", "drops", "checksum_errors", "verdict", "reasons"}));
}

TEST(Report, JsonLinesParseBackOnePerLine) {
  std::ostringstream out;
  StatsReport report(StatsFormat::json, out);
  report.interval(five_feeds());
  report.summary(summarize(five_feeds()));
  std::istringstream lines(out.str());
  std::string line;
  std::vector<std::string> types;
  while (std::getline(lines, line)) types.push_back(nlohmann::json::parse(line).at("type"));
  EXPECT_EQ(types, (std::vector<std::string>{"interval", "interval", "interval", "interval",
                                             "interval", "aggregate", "summary"}));
}

TEST(Report, SubconnectionAndLinkLinesFollowTheirFeedsIntervalLine) {
  Snapshot snapshot = five_feeds();
  snapshot.role = Role::send;
  auto& mtcp = snapshot.streams[1];
  mtcp.transport = "mtcp";
  for (std::uint8_t k = 0; k < 3; ++k) {
    mtcp.subconnections.push_back(SubconnectionSnapshot{k, StreamState::running, 1000u * k,
                                                        90.0 + k, 4.25, k, k == 2 ? 1u : 0u});
  }
  mtcp.link.present = true;
  mtcp.link.resent_chunks = 12;
  std::ostringstream out;
  StatsReport(StatsFormat::json, out).interval(snapshot);
  std::vector<nlohmann::json> lines;
  std::istringstream in(out.str());
  for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
  std::vector<std::string> types;
  for (const auto& line : lines) types.push_back(line.at("type"));
  EXPECT_EQ(types,
            (std::vector<std::string>{"interval", "interval", "subconn", "subconn", "subconn",
                                      "link", "interval", "interval", "interval", "aggregate"}));
  EXPECT_EQ(keys_of(subconnection_json(snapshot, mtcp, mtcp.subconnections[2])),
            (std::vector<std::string>{"type", "t", "role", "stream", "index", "state", "bytes",
                                      "mbps", "rtt_ms", "retransmits", "reconnects"}));
  EXPECT_EQ(lines[4]["stream"], 1);
  EXPECT_EQ(lines[4]["index"], 2);
  EXPECT_EQ(lines[4]["state"], "running");
  EXPECT_EQ(lines[4]["mbps"], 92.0);
  EXPECT_EQ(lines[4]["reconnects"], 1);
  EXPECT_EQ(lines[5]["resent_chunks"], 12);
  EXPECT_EQ(lines[5]["transport"], "mtcp");
}

TEST(Summary, ASendersVerdictCountsWhatItsReceiverReported) {
  Snapshot snapshot = five_feeds();
  snapshot.role = Role::send;
  EXPECT_TRUE(summarize(snapshot).pass);
  snapshot.streams[2].far_end.valid = true;
  snapshot.streams[2].far_end.drops = 4;
  snapshot.streams[3].far_end.valid = true;
  snapshot.streams[3].far_end.checksum_errors = 2;
  snapshot.streams[4].far_end.drops = 9;  // not valid: no report arrived, nothing to count
  const Summary s = summarize(snapshot);
  EXPECT_FALSE(s.pass);
  EXPECT_EQ(s.reasons, (std::vector<std::string>{"the receiver reported 4 frames dropped",
                                                 "the receiver reported 2 checksum errors"}));
  EXPECT_EQ(s.drops, 0u);  // the summary line's own figures stay the sender's
}

TEST(Summary, FiveCleanFeedsPassAtTheirPlannedRate) {
  const Summary s = summarize(five_feeds());
  EXPECT_TRUE(s.pass) << (s.reasons.empty() ? "" : s.reasons[0]);
  EXPECT_EQ(s.streams, 5u);
  EXPECT_EQ(s.frames, 1500u);
  // 300 frames of 1,126,126 bytes at 29.97 fps is 270.0 Mbps per feed.
  EXPECT_NEAR(s.mbps, 5 * 1'126'125 * 8 * 29.97 / 1e6, 0.5);
  EXPECT_NEAR(s.duration_s, 300 / 29.97, 0.01);
}

TEST(Summary, DropsChecksumErrorsAndDeadStreamsFailWithReasons) {
  Snapshot snapshot = five_feeds();
  snapshot.streams[1].drops = 3;
  snapshot.streams[2].checksum_errors = 1;
  snapshot.streams[3].state = StreamState::waiting;
  snapshot.streams[4].state = StreamState::failed;
  const Summary s = summarize(snapshot);
  EXPECT_FALSE(s.pass);
  EXPECT_EQ(s.reasons, (std::vector<std::string>{"stream 3 never connected", "stream 4 failed",
                                                 "3 frames dropped", "1 checksum errors"}));
  EXPECT_EQ(summary_json(s).at("verdict"), "fail");
  EXPECT_EQ(summary_json(s).at("reasons"), nlohmann::ordered_json(s.reasons));
}

TEST(Summary, ShortfallAgainstThePlannedRateFails) {
  Snapshot snapshot = five_feeds();
  for (auto& s : snapshot.streams) s.bytes /= 2;  // half the planned rate
  const Summary s = summarize(snapshot);
  EXPECT_FALSE(s.pass);
  ASSERT_EQ(s.reasons.size(), 1u);
  EXPECT_NE(s.reasons[0].find("below 95% of the planned 1350.0 Mbps"), std::string::npos)
      << s.reasons[0];
}

TEST(Report, TextSummaryStatesTheVerdictAndWhy) {
  Snapshot snapshot = five_feeds();
  snapshot.streams[0].drops = 1;
  std::ostringstream out;
  StatsReport(StatsFormat::text, out).summary(summarize(snapshot));
  EXPECT_NE(out.str().find("FAIL"), std::string::npos);
  EXPECT_NE(out.str().find("fail: 1 frames dropped"), std::string::npos);
}

}  // namespace
}  // namespace hdstream
