#include "stats/report.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include <sstream>

#include "stats/report_json.hpp"
#include "stats/summary.hpp"
#include "tests/stats/snapshots.hpp"

namespace hdstream {
namespace {

std::vector<std::string> keys_of(const nlohmann::ordered_json& object) {
  std::vector<std::string> keys;
  for (const auto& item : object.items()) keys.push_back(item.key());
  return keys;
}

using test::five_feeds;

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
    mtcp.striped.subconnections.push_back(SubconnectionSnapshot{k, StreamState::running, 1000u * k,
                                                             90.0 + k, 4.25, k, k == 2 ? 1u : 0u});
  }
  mtcp.striped.present = true;
  mtcp.striped.resent_chunks = 12;
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
  EXPECT_EQ(keys_of(subconnection_json(snapshot, mtcp, mtcp.striped.subconnections[2])),
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

TEST(Report, AProtectedFeedHasAProtectionLineAndALineForEachLeg) {
  Snapshot snapshot = five_feeds();
  auto& feed = snapshot.streams[3];
  feed.protection.present = true;
  feed.protection.protected_frames = 151;
  feed.protection.legs_up = 1;
  feed.protection.skew_ms = 48.3334;
  feed.protection.legs = {
      LegSnapshot{0, StreamState::waiting, 5000, 0.0, 20, 3, 20.5, 2, 0},
      LegSnapshot{1, StreamState::running, 9000, 101.5, 171, 0, 35.25, 0, 151},
  };
  std::ostringstream out;
  StatsReport(StatsFormat::json, out).interval(snapshot);
  std::vector<nlohmann::json> lines;
  std::istringstream in(out.str());
  for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
  std::vector<std::string> types;
  for (const auto& line : lines) types.push_back(line.at("type"));
  EXPECT_EQ(types, (std::vector<std::string>{"interval", "interval", "interval", "interval",
                                             "protection", "leg", "leg", "interval", "aggregate"}));
  EXPECT_EQ(
      keys_of(protection_json(snapshot, feed)),
      (std::vector<std::string>{"type", "t", "role", "stream", "legs_up", "protected", "skew_ms"}));
  EXPECT_EQ(lines[4]["stream"], 3);
  EXPECT_EQ(lines[4]["protected"], 151);
  EXPECT_EQ(lines[4]["legs_up"], 1);
  EXPECT_EQ(lines[4]["skew_ms"], 48.333);
  EXPECT_EQ(
      keys_of(leg_json(snapshot, feed, feed.protection.legs[0])),
      (std::vector<std::string>{"type", "t", "role", "stream", "leg", "state", "bytes", "mbps",
                                "frames", "drops", "rtt_ms", "retransmits", "only_frames"}));
  EXPECT_EQ(lines[5]["leg"], "a");
  EXPECT_EQ(lines[5]["state"], "waiting");
  EXPECT_EQ(lines[5]["drops"], 3);
  EXPECT_EQ(lines[6]["leg"], "b");
  EXPECT_EQ(lines[6]["frames"], 171);
  EXPECT_EQ(lines[6]["rtt_ms"], 35.25);
  EXPECT_EQ(lines[6]["only_frames"], 151);
}

// In text, a protected feed has a protect: line and a line per leg, in each interval and at
// the end (where the JSON lines are repeated with the run's totals).
TEST(Report, AProtectedFeedInTextAndAtTheEnd) {
  Snapshot snapshot = five_feeds();
  auto& feed = snapshot.streams[1];
  feed.protection.present = true;
  feed.protection.protected_frames = 7;
  feed.protection.legs_up = 2;
  feed.protection.skew_ms = 50.25;
  feed.protection.legs = {
      LegSnapshot{0, StreamState::running, 5000, 99.5, 300, 12, 20.5, 2, 0},
      LegSnapshot{1, StreamState::running, 9000, 101.5, 312, 0, 35.25, 0, 7},
  };
  std::ostringstream text;
  StatsReport(StatsFormat::text, text).interval(snapshot);
  EXPECT_NE(text.str().find("protect: legs up 2/2  protected 7  skew 50.2 ms\n"), std::string::npos)
      << text.str();
  EXPECT_NE(text.str().find("leg A:  running      99.5 Mbps  frames     300  drops   12  rtt   "
                            "20.50 ms  retx 2  only it 0\n"),
            std::string::npos)
      << text.str();
  EXPECT_NE(text.str().find("leg B:  running     101.5 Mbps  frames     312  drops    0  rtt   "
                            "35.25 ms  retx 0  only it 7\n"),
            std::string::npos)
      << text.str();

  std::ostringstream final_text, final_json;
  StatsReport(StatsFormat::text, final_text).protection(snapshot);
  const std::string last = final_text.str();
  EXPECT_EQ(last.rfind("final   ", 0), 0u) << last;
  EXPECT_EQ(std::count(last.begin(), last.end(), '\n'), 3) << last;
  StatsReport(StatsFormat::json, final_json).protection(snapshot);
  std::istringstream in(final_json.str());
  std::vector<std::string> types;
  for (std::string line; std::getline(in, line);) {
    const auto json = nlohmann::json::parse(line);
    EXPECT_EQ(json["stream"], 1);
    types.push_back(json.at("type"));
  }
  EXPECT_EQ(types, (std::vector<std::string>{"protection", "leg", "leg"}));
}

// libsrt's FEC figures (--srt-fec) ride in the "link" line, and in text a "fec:" line once there
// are any.
TEST(Report, SrtFecFiguresAreInTheLinkLineAndInTextWhenFecRuns) {
  Snapshot snapshot = five_feeds();
  auto& srt = snapshot.streams[2];
  srt.transport = "srt";
  srt.srt.present = true;
  EXPECT_EQ(keys_of(link_json(snapshot, srt)),
            (std::vector<std::string>{"type", "t", "role", "stream", "transport", "resent_chunks",
                                      "duplicate_chunks", "lost_packets", "dropped_packets",
                                      "belated_packets", "buffer_ms", "fec_packets",
                                      "fec_recovered", "fec_uncorrectable"}));
  std::ostringstream without;
  StatsReport(StatsFormat::text, without).interval(snapshot);
  EXPECT_EQ(without.str().find("fec:"), std::string::npos) << without.str();

  srt.srt.fec_packets = 4000;
  srt.srt.fec_recovered = 130;
  srt.srt.fec_uncorrectable = 2;
  const auto line = link_json(snapshot, srt);
  EXPECT_EQ(line["fec_packets"], 4000);
  EXPECT_EQ(line["fec_recovered"], 130);
  EXPECT_EQ(line["fec_uncorrectable"], 2);
  std::ostringstream with;
  StatsReport(StatsFormat::text, with).interval(snapshot);
  EXPECT_NE(with.str().find("fec:    packets 4000  recovered 130  uncorrectable 2\n"),
            std::string::npos)
      << with.str();
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
