// One spelling of each stats field: the JSON-lines report and the /stats.json document name,
// order and round a stream's counters and its far-end report the same way.
#include "stats/json_fields.hpp"

#include <gtest/gtest.h>

#include "stats/report_json.hpp"
#include "stats/snapshot_json.hpp"

namespace hdstream {
namespace {

StreamSnapshot reported_stream() {
  StreamSnapshot s;
  s.stream = 3;
  s.transport = "mtcp";
  s.state = StreamState::running;
  s.bytes = 123'456'789;
  s.frames = 1234;
  s.mbps = 269.99951;
  s.drops = 2;
  s.checksum_errors = 1;
  s.jitter_ms = 0.12345;
  s.rtt_ms = 30.0006;
  s.retransmits = 17;
  s.far_end = FarEndSnapshot{.valid = true,
                             .bytes = 123'000'000,
                             .frames = 1230,
                             .drops = 3,
                             .checksum_errors = 0,
                             .jitter_ms = 0.31849,
                             .fps = 29.97002,
                             .latency_ms = 0.72749,
                             .age_ms = 95.81249,
                             .reports = 20};
  return s;
}

std::vector<std::string> keys_of(const nlohmann::ordered_json& object) {
  std::vector<std::string> keys;
  for (const auto& item : object.items()) keys.push_back(item.key());
  return keys;
}

TEST(JsonFields, RoundsToThreeDecimals) {
  EXPECT_DOUBLE_EQ(round3(269.99951), 270.0);
  EXPECT_DOUBLE_EQ(round3(0.12345), 0.123);
  EXPECT_DOUBLE_EQ(round3(-1.0006), -1.001);
  EXPECT_DOUBLE_EQ(round3(0), 0);
}

TEST(JsonFields, CountersFollowWhatTheObjectAlreadyHolds) {
  nlohmann::ordered_json object = {{"type", "interval"}};
  append_counters(object, reported_stream());
  EXPECT_EQ(keys_of(object),
            (std::vector<std::string>{"type", "bytes", "frames", "mbps", "drops", "checksum_errors",
                                      "jitter_ms", "rtt_ms", "retransmits"}));
  EXPECT_EQ(object["bytes"], 123'456'789u);
  EXPECT_DOUBLE_EQ(object["mbps"].get<double>(), 270.0);
  EXPECT_DOUBLE_EQ(object["rtt_ms"].get<double>(), 30.001);
}

TEST(JsonFields, TheFarEndLineAndStatsJsonCarryTheSameReport) {
  Snapshot snapshot;
  snapshot.t = 2.0;
  snapshot.role = Role::send;
  snapshot.streams.push_back(reported_stream());
  const auto line = far_end_json(snapshot, snapshot.streams[0]);
  EXPECT_EQ(keys_of(line),
            (std::vector<std::string>{"type", "t", "role", "stream", "bytes", "frames", "drops",
                                      "checksum_errors", "jitter_ms", "fps", "latency_ms", "age_ms",
                                      "reports"}));
  const LabeledSnapshot source{"studio-a", "198.18.0.2:9000", snapshot};
  const auto document = stats_document("studio-a", std::span(&source, 1));
  const auto& far_end = document["snapshots"][0]["streams"][0]["far_end"];
  for (const auto& [key, value] : far_end.items()) {
    EXPECT_EQ(line.at(key), value) << key;
  }
  EXPECT_EQ(far_end.size() + 4, line.size());  // all but type, t, role, stream

  // And /stats.json reads back to the same (rounded) report.
  const auto back = parse_stats_document(document.dump());
  ASSERT_EQ(back.size(), 1u);
  const FarEndSnapshot& parsed = back[0].snapshot.streams.at(0).far_end;
  EXPECT_TRUE(parsed.valid);
  EXPECT_EQ(parsed.frames, 1230u);
  EXPECT_EQ(parsed.reports, 20u);
  EXPECT_DOUBLE_EQ(parsed.fps, 29.97);
  EXPECT_DOUBLE_EQ(parsed.age_ms, 95.812);
}

TEST(JsonFields, AStreamWithoutReportsHasNoFarEndInStatsJson) {
  Snapshot snapshot;
  snapshot.role = Role::recv;
  StreamSnapshot s = reported_stream();
  s.far_end = FarEndSnapshot{};
  snapshot.streams.push_back(s);
  const LabeledSnapshot source{"studio-b", "0.0.0.0:9000", snapshot};
  const auto document = stats_document("studio-b", std::span(&source, 1));
  EXPECT_FALSE(document["snapshots"][0]["streams"][0].contains("far_end"));
  EXPECT_FALSE(parse_stats_document(document.dump())[0].snapshot.streams[0].far_end.valid);
}

TEST(JsonFields, ADecodedFeedsPictureStateRoundTripsThroughStatsJson) {
  Snapshot snapshot;
  snapshot.role = Role::recv;
  StreamSnapshot decoded = reported_stream();
  decoded.media = true;
  decoded.frames_decoded = 4321;
  decoded.frozen = true;
  StreamSnapshot counted = reported_stream();  // not decoded: no picture object at all
  counted.stream = 1;
  counted.frozen = true;  // meaningless without media, and not sent
  snapshot.streams = {decoded, counted};
  const LabeledSnapshot source{"studio-b", "0.0.0.0:9000", snapshot};
  const auto document = stats_document("studio-b", std::span(&source, 1));
  const auto& streams = document["snapshots"][0]["streams"];
  EXPECT_EQ(streams[0]["picture"],
            nlohmann::ordered_json({{"decoded", 4321}, {"frozen", true}, {"black", false}}));
  EXPECT_FALSE(streams[1].contains("picture"));

  const auto back = parse_stats_document(document.dump()).at(0).snapshot.streams;
  ASSERT_EQ(back.size(), 2u);
  EXPECT_TRUE(back[0].media);
  EXPECT_EQ(back[0].frames_decoded, 4321u);
  EXPECT_TRUE(back[0].frozen);
  EXPECT_FALSE(back[0].black);
  EXPECT_FALSE(back[1].media);
  EXPECT_FALSE(back[1].frozen);

  // A hostile host's picture object of the wrong types is a malformed document, one line.
  auto hostile = nlohmann::json::parse(document.dump());
  hostile["snapshots"][0]["streams"][0]["picture"]["frozen"] = "yes";
  try {
    parse_stats_document(hostile.dump());
    ADD_FAILURE() << "a string for a bool was accepted";
  } catch (const StatsDocumentError& error) {
    EXPECT_NE(std::string(error.what()).find("malformed /stats.json"), std::string::npos);
    EXPECT_EQ(std::string(error.what()).find('\n'), std::string::npos);
  }
}

}  // namespace
}  // namespace hdstream
