// One spelling of each stats field: the JSON-lines report and the /stats.json document name,
// order and round a stream's counters and its far-end report the same way.
#include "stats/json_fields.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <utility>
#include <vector>

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

StreamSnapshot protected_stream() {
  StreamSnapshot s = reported_stream();
  s.transport = "tcp";
  s.protection.present = true;
  s.protection.protected_frames = 151;
  s.protection.legs_up = 1;
  s.protection.skew_ms = 48.33349;
  s.protection.legs = {
      LegSnapshot{0, StreamState::waiting, 5000, 0.04, 20, 3, 20.5004, 2, 0},
      LegSnapshot{1, StreamState::running, 9000, 101.4996, 171, 0, 35.25, 0, 151},
  };
  return s;
}

// A document to make hostile: one receiver, one protected feed.
nlohmann::json protected_document() {
  Snapshot snapshot;
  snapshot.role = Role::recv;
  snapshot.streams.push_back(protected_stream());
  const LabeledSnapshot source{"studio-b", "0.0.0.0:9000", snapshot};
  return nlohmann::json::parse(stats_document("studio-b", std::span(&source, 1)).dump());
}

void expect_malformed(const nlohmann::json& document, const std::string& what) {
  try {
    const auto parsed = parse_stats_document(document.dump());
    ADD_FAILURE() << what
                  << " was accepted: " << parsed.at(0).snapshot.streams.at(0).protection.legs.size()
                  << " legs";
  } catch (const StatsDocumentError& error) {
    EXPECT_NE(std::string(error.what()).find("malformed /stats.json"), std::string::npos)
        << what << ": " << error.what();
    EXPECT_EQ(std::string(error.what()).find('\n'), std::string::npos) << what;
  }
}

// The monitor's panel meters a remote feed's sound from /stats.json: levels, alarm, lip-sync and
// whether it is heard come back as they went; a hostile document claiming more meters than a
// feed has channels for, or more channels than a feed carries, is refused in one line.
TEST(JsonFields, ADecodedFeedsSoundRoundTripsThroughStatsJson) {
  Snapshot snapshot;
  snapshot.role = Role::recv;
  StreamSnapshot s = reported_stream();
  s.media = true;
  s.audio_channels = 3;
  s.sound.pairs = {PairLevels{-6.04, -9.01, -3.0}, PairLevels{-120, -120, -120}};
  s.sound.silent = true;
  s.av_offset_ms = 12.3456;
  s.audio_heard = false;
  StreamSnapshot mute = reported_stream();  // video only: no sound object
  mute.stream = 1;
  mute.media = true;
  snapshot.streams = {s, mute};
  const LabeledSnapshot source{"studio-b", "0.0.0.0:9000", snapshot};
  const auto document = stats_document("studio-b", std::span(&source, 1));
  const auto& written = document["snapshots"][0]["streams"][0]["sound"];
  EXPECT_EQ(written["channels"], 3);
  EXPECT_EQ(written["levels"][0]["peak_dbfs"], -6.0);
  EXPECT_EQ(written["av_offset_ms"], 12.346);
  EXPECT_FALSE(document["snapshots"][0]["streams"][1].contains("sound"));
  // A session's first moments, channels announced and no meters yet: left out, not published
  // inconsistent (a monitor would refuse the whole document).
  StreamSnapshot starting = s;
  starting.sound.pairs.clear();
  Snapshot early = snapshot;
  early.streams = {starting};
  const LabeledSnapshot early_source{"studio-b", "0.0.0.0:9000", early};
  const auto early_document = stats_document("studio-b", std::span(&early_source, 1));
  EXPECT_FALSE(early_document["snapshots"][0]["streams"][0].contains("sound"));
  EXPECT_NO_THROW(parse_stats_document(early_document.dump()));

  const auto back = parse_stats_document(document.dump()).at(0).snapshot.streams;
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].audio_channels, 3);
  ASSERT_EQ(back[0].sound.pairs.size(), 2u);
  EXPECT_EQ(back[0].sound.pairs[0], (PairLevels{-6.0, -9.0, -3.0}));
  EXPECT_TRUE(back[0].sound.silent);
  EXPECT_EQ(back[0].av_offset_ms, 12.346);
  EXPECT_FALSE(back[0].audio_heard);
  EXPECT_EQ(back[1].audio_channels, 0);
  EXPECT_TRUE(back[1].sound.pairs.empty());

  const auto refused = [&](const std::function<void(nlohmann::json&)>& change) {
    auto hostile = nlohmann::json::parse(document.dump());
    change(hostile["snapshots"][0]["streams"][0]["sound"]);
    try {
      parse_stats_document(hostile.dump());
      return std::string("accepted");
    } catch (const StatsDocumentError& error) {
      return std::string(error.what());
    }
  };
  auto too_many = [](nlohmann::json& sound) {
    sound["levels"] = nlohmann::json::array();
    for (int i = 0; i < 100000; ++i) sound["levels"].push_back(sound["levels"].size());
  };
  EXPECT_NE(refused(too_many).find("3 channels of sound need 2 levels"), std::string::npos);
  EXPECT_NE(refused([](nlohmann::json& sound) {
              sound["channels"] = 200;
            }).find("a feed with 200 channels of sound"),
            std::string::npos);
  EXPECT_NE(refused([](nlohmann::json& sound) { sound["channels"] = 0; }).find("0 channels"),
            std::string::npos);
  EXPECT_NE(refused([](nlohmann::json& sound) {
              sound["levels"][0]["peak_dbfs"] = "loud";
            }).find("malformed /stats.json"),
            std::string::npos);
  EXPECT_NE(refused([](nlohmann::json& sound) { sound = "quiet"; }).find("not an object"),
            std::string::npos);
  for (const auto& problem :
       {refused(too_many), refused([](nlohmann::json& sound) { sound["silent"] = 1.5; })}) {
    EXPECT_EQ(problem.find('\n'), std::string::npos) << problem;
  }
}

TEST(JsonFields, TheProtectionAndLegLinesAndStatsJsonCarryTheSameFigures) {
  Snapshot snapshot;
  snapshot.t = 2.0;
  snapshot.role = Role::recv;
  snapshot.streams.push_back(protected_stream());
  const StreamSnapshot& feed = snapshot.streams[0];
  const LabeledSnapshot source{"studio-b", "0.0.0.0:9000", snapshot};
  const auto document = stats_document("studio-b", std::span(&source, 1));
  const auto& protection = document["snapshots"][0]["streams"][0]["protection"];
  const auto line = protection_json(snapshot, feed);
  EXPECT_EQ(keys_of(protection),
            (std::vector<std::string>{"legs_up", "protected", "skew_ms", "legs"}));
  for (const char* key : {"legs_up", "protected", "skew_ms"}) {
    EXPECT_EQ(protection.at(key), line.at(key)) << key;
  }
  EXPECT_EQ(protection["skew_ms"], 48.333);
  ASSERT_EQ(protection["legs"].size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    const auto leg = leg_json(snapshot, feed, feed.protection.legs[i]);
    const auto& object = protection["legs"][i];
    EXPECT_EQ(object.size() + 4, leg.size());  // all but type, t, role, stream
    for (const auto& [key, value] : object.items()) EXPECT_EQ(leg.at(key), value) << key;
  }
  EXPECT_EQ(protection["legs"][0]["leg"], "a");
  EXPECT_EQ(protection["legs"][1]["leg"], "b");

  // And /stats.json reads back to the same (rounded) figures.
  const auto back = parse_stats_document(document.dump()).at(0).snapshot.streams.at(0).protection;
  EXPECT_TRUE(back.present);
  EXPECT_EQ(back.protected_frames, 151u);
  EXPECT_EQ(back.legs_up, 1u);
  EXPECT_DOUBLE_EQ(back.skew_ms, 48.333);
  ASSERT_EQ(back.legs.size(), 2u);
  EXPECT_EQ(back.legs[0].leg, 0);
  EXPECT_EQ(back.legs[0].state, StreamState::waiting);
  EXPECT_EQ(back.legs[0].drops, 3u);
  EXPECT_DOUBLE_EQ(back.legs[0].rtt_ms, 20.5);
  EXPECT_EQ(back.legs[0].retransmits, 2u);
  EXPECT_EQ(back.legs[1].leg, 1);
  EXPECT_EQ(back.legs[1].state, StreamState::running);
  EXPECT_EQ(back.legs[1].bytes, 9000u);
  EXPECT_DOUBLE_EQ(back.legs[1].mbps, 101.5);
  EXPECT_EQ(back.legs[1].frames, 171u);
  EXPECT_EQ(back.legs[1].only_frames, 151u);
}

TEST(JsonFields, APlainFeedHasNoProtectionInStatsJson) {
  Snapshot snapshot;
  snapshot.role = Role::recv;
  snapshot.streams.push_back(reported_stream());
  const LabeledSnapshot source{"studio-b", "0.0.0.0:9000", snapshot};
  const auto document = stats_document("studio-b", std::span(&source, 1));
  EXPECT_FALSE(document["snapshots"][0]["streams"][0].contains("protection"));
  EXPECT_FALSE(parse_stats_document(document.dump())[0].snapshot.streams[0].protection.present);
}

// What a stranger's /stats.json may say about legs: the panel and /metrics index legs by name,
// so anything but A and B, each at most once, is a malformed document (one line, no echo).
TEST(JsonFields, HostileProtectionObjectsAreMalformedDocuments) {
  auto legs_of = [](nlohmann::json& document) -> nlohmann::json& {
    return document["snapshots"][0]["streams"][0]["protection"]["legs"];
  };
  {
    auto document = protected_document();
    legs_of(document) = 3;
    expect_malformed(document, "legs that are not a list");
  }
  {
    auto document = protected_document();
    legs_of(document)[1] = "b";
    expect_malformed(document, "a leg that is not an object");
  }
  {
    auto document = protected_document();
    legs_of(document)[1]["leg"] = "c";
    expect_malformed(document, "a leg named c");
  }
  {
    auto document = protected_document();
    legs_of(document)[1]["leg"] = "b\nX-Injected: 1";
    expect_malformed(document, "a leg name with a newline");
  }
  {
    auto document = protected_document();
    legs_of(document)[1]["leg"] = 1;
    expect_malformed(document, "a leg named by a number");
  }
  {
    auto document = protected_document();
    legs_of(document)[1]["leg"] = "a";
    expect_malformed(document, "leg a twice");
  }
  {
    auto document = protected_document();
    legs_of(document).push_back(legs_of(document)[0]);
    expect_malformed(document, "three legs");
  }
  {
    auto document = protected_document();
    legs_of(document)[0]["bytes"] = "lots";
    expect_malformed(document, "a string for a leg's bytes");
  }
  {
    auto document = protected_document();
    document["snapshots"][0]["streams"][0]["protection"]["legs_up"] = "two";
    expect_malformed(document, "a string for legs_up");
  }
  // What is merely odd reads as what it says: an unknown state is no state, a leg left out is
  // not there, and a protection that is not an object is no protection (as a far_end is).
  {
    auto document = protected_document();
    legs_of(document)[0]["state"] = "exploded";
    legs_of(document).erase(1);
    const auto legs = parse_stats_document(document.dump())[0].snapshot.streams[0].protection.legs;
    ASSERT_EQ(legs.size(), 1u);
    EXPECT_EQ(legs[0].state, StreamState::invalid);
  }
  {
    auto document = protected_document();
    document["snapshots"][0]["streams"][0]["protection"] = "yes";
    EXPECT_FALSE(parse_stats_document(document.dump())[0].snapshot.streams[0].protection.present);
  }
}

// Integers that do not fit their field are refused, not wrapped or truncated; a float or a
// negative count is no integer; deep nesting is refused before it is built.
TEST(JsonFields, OutOfRangeIntegersAndDeepNestingAreMalformedDocuments) {
  auto stream_of = [](nlohmann::json& document) -> nlohmann::json& {
    return document["snapshots"][0]["streams"][0];
  };
  const std::vector<std::pair<const char*, nlohmann::json>> hostile = {
      {"stream", 65536},                          // a uint16 stream id, wrapped to 0 before
      {"stream", -1},                             // ... and to 65535
      {"latency_budget_ms", 4294967296},          // uint32
      {"frames", -5},                             // a count below zero
      {"drops", 1.5},                             // a count with a fraction
      {"first_frame_ns", 18446744073709551615u},  // above int64
  };
  for (const auto& [name, value] : hostile) {
    auto document = protected_document();
    stream_of(document)[name] = value;
    expect_malformed(document, std::string(name) + " = " + value.dump());
  }
  // The largest values that fit still read as themselves.
  auto document = protected_document();
  stream_of(document)["stream"] = 65535;
  stream_of(document)["frames"] = 18446744073709551615u;
  stream_of(document)["first_frame_ns"] = -9223372036854775807 - 1;
  const auto s = parse_stats_document(document.dump())[0].snapshot.streams[0];
  EXPECT_EQ(s.stream, 65535);
  EXPECT_EQ(s.frames, 18446744073709551615u);
  EXPECT_EQ(s.first_frame_ns, std::numeric_limits<std::int64_t>::min());

  // 100,000 nested arrays (200 KB) in a field the parser never reads: refused at depth 17.
  auto deep = protected_document().dump();
  deep.insert(deep.size() - 1, ",\"x\":" + std::string(100'000, '[') + std::string(100'000, ']'));
  try {
    parse_stats_document(deep);
    ADD_FAILURE() << "deep nesting accepted";
  } catch (const StatsDocumentError& error) {
    EXPECT_NE(std::string(error.what()).find("nested deeper than 16"), std::string::npos)
        << error.what();
  }
}

// A host's names reach terminals (`monitor`'s rows), logs and panels: escape sequences and
// other control bytes in them come out as '?', and a name is at most 256 bytes.
TEST(JsonFields, AHostsNamesArePrintableWhateverItSends) {
  auto document = protected_document();
  document["snapshots"][0]["host"] = "evil\x1b]0;owned\x07\x1b[2J";
  document["snapshots"][0]["endpoint"] = std::string(1000, 'e') + "\n";
  document["snapshots"][0]["streams"][0]["transport"] = "tcp\x1b[31m";
  const auto parsed = parse_stats_document(document.dump());
  EXPECT_EQ(parsed[0].host, "evil?]0;owned??[2J");
  EXPECT_EQ(parsed[0].endpoint, std::string(256, 'e'));
  EXPECT_EQ(parsed[0].snapshot.streams[0].transport, "tcp?[31m");
  document["snapshots"][0]["role"] = "send\x1b[2J";
  try {
    parse_stats_document(document.dump());
    ADD_FAILURE() << "an unknown role accepted";
  } catch (const StatsDocumentError& error) {
    EXPECT_EQ(std::string(error.what()), "unknown role 'send?[2J'");
  }
}

// /stats.json's rates: each leg of a protected feed against the same leg a moment before.
TEST(JsonFields, FillRatesGivesEachLegItsOwnRate) {
  Snapshot before;
  before.t = 1.0;
  before.streams.push_back(protected_stream());
  before.streams[0].protection.legs = {LegSnapshot{.leg = 0, .bytes = 1'000'000},
                                       LegSnapshot{.leg = 1, .bytes = 9'000'000}};
  before.streams[0].bytes = 1'000'000;
  Snapshot now = before;
  now.t = 1.5;
  now.streams[0].bytes = 4'000'000;
  // Leg A moved 2.5 MB in 0.5 s (40 Mbps); leg B restarted and counts from zero again.
  now.streams[0].protection.legs[0].bytes = 3'500'000;
  now.streams[0].protection.legs[1].bytes = 10;
  now.streams[0].protection.legs[1].mbps = 0;
  fill_rates(now, before);
  EXPECT_DOUBLE_EQ(now.streams[0].mbps, 48.0);
  EXPECT_DOUBLE_EQ(now.streams[0].protection.legs[0].mbps, 40.0);
  EXPECT_DOUBLE_EQ(now.streams[0].protection.legs[1].mbps, 0.0) << "no wrapped rate";
  // A leg that had no counterpart before keeps what it had.
  before.streams[0].protection.legs.pop_back();
  now.streams[0].protection.legs[1] = LegSnapshot{.leg = 1, .bytes = 500'000, .mbps = 7};
  fill_rates(now, before);
  EXPECT_DOUBLE_EQ(now.streams[0].protection.legs[1].mbps, 7.0);
}

}  // namespace
}  // namespace hdstream
