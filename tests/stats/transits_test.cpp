// The far end's per-frame transit samples (stats/transits.hpp, StatsRegistry::take_transits) and
// FEEDBACK extension 1 in the far_end JSON.
#include "stats/transits.hpp"

#include <gtest/gtest.h>

#include <thread>

#include "stats/registry.hpp"
#include "stats/report_json.hpp"
#include "stats/snapshot_json.hpp"

namespace hdstream {
namespace {

TEST(TransitBuffer, TakesOldestFirstAndEmpties) {
  TransitBuffer buffer(4);
  EXPECT_TRUE(buffer.take().empty());
  buffer.push({1, 10});
  buffer.push({2, -20});
  EXPECT_EQ(buffer.take(), (std::vector<TransitSample>{{1, 10}, {2, -20}}));
  EXPECT_TRUE(buffer.take().empty());
  EXPECT_EQ(buffer.dropped(), 0u);
}

TEST(TransitBuffer, WhenFullDropsTheOldestAndCountsThem) {
  TransitBuffer buffer(4);
  for (std::uint32_t seq = 0; seq < 7; ++seq) buffer.push({seq, 1});
  EXPECT_EQ(buffer.dropped(), 3u);
  EXPECT_EQ(buffer.take(), (std::vector<TransitSample>{{3, 1}, {4, 1}, {5, 1}, {6, 1}}));
  buffer.push({7, 1});  // the ring goes on from where take() left it
  EXPECT_EQ(buffer.take(), (std::vector<TransitSample>{{7, 1}}));
  EXPECT_EQ(buffer.dropped(), 3u);
}

TEST(StatsRegistry, TakeTransitsDrainsOneStreamsFarEndSamples) {
  StatsRegistry stats(Role::send, 2, "tcp");
  stats.stream(1).far_end.transits.push({40, 700});
  stats.stream(1).far_end.transits.push({41, 650});
  EXPECT_TRUE(stats.take_transits(0).empty());
  EXPECT_EQ(stats.take_transits(1), (std::vector<TransitSample>{{40, 700}, {41, 650}}));
  EXPECT_TRUE(stats.take_transits(1).empty());
}

TEST(StatsRegistry, TakeTransitsHoldsAtMost8192AndCountsWhatItDropped) {
  StatsRegistry stats(Role::send, 1, "tcp");
  auto& far = stats.stream(0).far_end;
  far.received_ns.store(1);  // a report arrived: the snapshot shows the far end
  for (std::uint32_t seq = 0; seq < kSenderTransitCapacity + 10; ++seq) {
    far.transits.push({seq, 5});
  }
  const auto samples = stats.take_transits(0);
  ASSERT_EQ(samples.size(), kSenderTransitCapacity);
  EXPECT_EQ(samples.front().frame_seq, 10u);
  EXPECT_EQ(samples.back().frame_seq, kSenderTransitCapacity + 9);
  EXPECT_EQ(stats.read().streams[0].far_end.transits_dropped, 10u);
}

// One thread pushing what reports bring while another takes: every sample comes out once, in
// order.
TEST(StatsRegistry, TakeTransitsIsSafeBesideTheReportsThatFillIt) {
  StatsRegistry stats(Role::send, 1, "tcp");
  constexpr std::uint32_t kSamples = 200'000;
  std::jthread reports([&] {
    for (std::uint32_t seq = 0; seq < kSamples; ++seq) {
      stats.stream(0).far_end.transits.push({seq, 1});
    }
  });
  std::vector<TransitSample> all;
  while (all.size() + stats.stream(0).far_end.transits.dropped() < kSamples) {
    auto some = stats.take_transits(0);
    all.insert(all.end(), some.begin(), some.end());
  }
  for (std::size_t i = 1; i < all.size(); ++i) {
    ASSERT_LT(all[i - 1].frame_seq, all[i].frame_seq) << i;
  }
  EXPECT_EQ(all.size() + stats.stream(0).far_end.transits.dropped(), kSamples);
}

StreamSnapshot reported_stream(bool extended) {
  StreamSnapshot s;
  s.stream = 1;
  s.far_end.valid = true;
  s.far_end.frames = 500;
  s.far_end.drops = 6;
  s.far_end.reports = 9;
  s.far_end.extended = extended;
  if (extended) {
    s.far_end.late_frames = 1;
    s.far_end.loss_events = 2;
    s.far_end.longest_loss_run = 4;
    s.far_end.duplicate_chunks = 12;
    s.far_end.out_of_order_chunks = 30;
    s.far_end.transits_dropped = 3;
  }
  return s;
}

TEST(FarEndJson, AnExtendedReportShowsItsLossAndChunkCounters) {
  Snapshot snapshot;
  snapshot.role = Role::send;
  snapshot.streams.push_back(reported_stream(true));
  const auto line = far_end_json(snapshot, snapshot.streams[0]);
  EXPECT_EQ(line["extended"], true);
  EXPECT_EQ(line["late_frames"], 1u);
  EXPECT_EQ(line["loss_events"], 2u);
  EXPECT_EQ(line["longest_loss_run"], 4u);
  EXPECT_EQ(line["duplicate_chunks"], 12u);
  EXPECT_EQ(line["out_of_order_chunks"], 30u);
  EXPECT_FALSE(line.contains("transits_dropped"));  // the snapshot's, for take_transits' caller
  // /stats.json carries the same and reads back.
  const LabeledSnapshot source{"a", "127.0.0.1:9000", snapshot};
  const auto document = stats_document("a", std::span(&source, 1));
  const auto back = parse_stats_document(document.dump());
  ASSERT_EQ(back.size(), 1u);
  const FarEndSnapshot& parsed = back[0].snapshot.streams.at(0).far_end;
  EXPECT_TRUE(parsed.extended);
  EXPECT_EQ(parsed.late_frames, 1u);
  EXPECT_EQ(parsed.loss_events, 2u);
  EXPECT_EQ(parsed.longest_loss_run, 4u);
  EXPECT_EQ(parsed.duplicate_chunks, 12u);
  EXPECT_EQ(parsed.out_of_order_chunks, 30u);
}

TEST(FarEndJson, AnOlderReceiversReportReadsAsBefore) {
  Snapshot snapshot;
  snapshot.role = Role::send;
  snapshot.streams.push_back(reported_stream(false));
  const auto line = far_end_json(snapshot, snapshot.streams[0]);
  EXPECT_FALSE(line.contains("extended"));
  EXPECT_FALSE(line.contains("late_frames"));
  EXPECT_FALSE(line.contains("loss_events"));
  EXPECT_EQ(line["drops"], 6u);
}

}  // namespace
}  // namespace hdstream
