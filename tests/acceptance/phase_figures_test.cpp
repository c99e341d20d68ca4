// A phase's figures from deliveries whose loss, delay and timing are known: loss by sequence
// with its runs, each second's share of it (errored, severely errored), availability, delay one
// way or half the RTT, delay variation against the feed's least transit, the information rate.
#include "acceptance/phase_figures.hpp"

#include <gtest/gtest.h>

#include <set>

namespace hdstream {
namespace {

constexpr double kFps = 30;

// A feed of `seconds` at 30 fps, 1 MB frames, whose frames in `lost` never arrived; every
// delivered frame's transit is `transit_us(seq)`.
template <typename Transit>
FeedRecord feed(std::uint16_t stream, int seconds, const std::set<std::uint32_t>& lost,
                Transit transit_us) {
  FeedRecord f{.stream = stream, .frame_rate = kFps};
  f.frames_offered = static_cast<std::uint64_t>(seconds * kFps);
  for (std::uint32_t seq = 0; seq < f.frames_offered; ++seq) {
    if (lost.contains(seq)) continue;
    f.delivered.push_back({.frame_seq = seq, .transit_us = transit_us(seq)});
  }
  f.frames_reported = f.delivered.size();
  f.bytes_delivered = f.frames_reported * 1'000'000;
  return f;
}

std::int32_t steady(std::uint32_t) {
  return 2000;
}

TEST(PhaseFigures, ACleanPhaseDeliversItsRateWithNoLossAndFullAvailability) {
  PhaseInput input{.name = "soak", .offered_mbps = 480, .delay_basis = DelayBasis::one_way};
  input.feeds = {feed(0, 10, {}, steady), feed(1, 10, {}, steady)};
  const PhaseFigures f = measure_phase(input, 0.3);
  EXPECT_DOUBLE_EQ(f.seconds, 10);
  EXPECT_DOUBLE_EQ(f.rate_mbps, 2 * 30 * 8.0);  // 2 feeds x 30 frames/s x 8 Mbit
  EXPECT_EQ(f.frames_offered, 600u);
  EXPECT_EQ(f.frames_delivered, 600u);
  EXPECT_EQ(f.frames_lost, 0u);
  EXPECT_EQ(f.loss_events, 0u);
  EXPECT_EQ(f.errored_seconds, 0u);
  EXPECT_EQ(f.seconds_counted, 10u);
  EXPECT_DOUBLE_EQ(f.availability, 1.0);
  EXPECT_DOUBLE_EQ(f.delay_ms, 2.0);
  EXPECT_DOUBLE_EQ(f.delay_variation_ms.max, 0.0);
  EXPECT_TRUE(f.samples_complete);
}

TEST(PhaseFigures, LossIsCountedBySequenceWithItsRunsAndTheSecondsItFellIn) {
  // Feed 0 loses frames 5-7 and 9 (second 0: 2 events, longest 3) and all of second 4
  // (frames 120-149, a cut); feed 1 loses frame 200 (second 6).
  std::set<std::uint32_t> lost0{5, 6, 7, 9};
  for (std::uint32_t seq = 120; seq < 150; ++seq) lost0.insert(seq);
  PhaseInput input{.name = "soak", .offered_mbps = 480};
  input.feeds = {feed(0, 10, lost0, steady), feed(1, 10, {200}, steady)};
  const PhaseFigures f = measure_phase(input, 0.3);
  EXPECT_EQ(f.frames_lost, 35u);
  EXPECT_EQ(f.frames_delivered, 565u);
  EXPECT_DOUBLE_EQ(f.loss_ratio, 35.0 / 600);
  EXPECT_EQ(f.loss_events, 4u);  // 5-7, 9, 120-149, 200
  EXPECT_EQ(f.longest_loss_run, 30u);
  ASSERT_EQ(f.by_second.size(), 10u);
  EXPECT_EQ(f.by_second[0].frames_lost, 4u);
  EXPECT_TRUE(f.by_second[0].errored);
  EXPECT_FALSE(f.by_second[0].severely_errored);  // 4 of 60
  EXPECT_EQ(f.by_second[4].frames_lost, 30u);
  EXPECT_TRUE(f.by_second[4].severely_errored);  // 30 of 60 > 30 %
  EXPECT_TRUE(f.by_second[6].errored);
  EXPECT_FALSE(f.by_second[5].errored);
  EXPECT_EQ(f.errored_seconds, 3u);
  EXPECT_EQ(f.severely_errored_seconds, 1u);
  EXPECT_DOUBLE_EQ(f.availability, 0.9);
  EXPECT_DOUBLE_EQ(f.by_second[4].rate_mbps, 30 * 8.0);  // only feed 1's frames arrived
}

TEST(PhaseFigures, TheSevereThresholdDecidesASecondAtTheEdge) {
  std::set<std::uint32_t> lost;
  for (std::uint32_t seq = 30; seq < 39; ++seq) lost.insert(seq);  // 9 of second 1's 30: 30 %
  PhaseInput input{.name = "soak", .offered_mbps = 240};
  input.feeds = {feed(0, 3, lost, steady)};
  EXPECT_EQ(measure_phase(input, 0.3).severely_errored_seconds, 0u);  // not more than 30 %
  EXPECT_EQ(measure_phase(input, 0.29).severely_errored_seconds, 1u);
}

TEST(PhaseFigures, DelayVariationIsEachFramesTransitAboveItsFeedsLeast) {
  // Feed 0's clock is 50 ms off feed 1's: the offset must not show as variation. Feed 0's
  // transits rise 0..99 us over its 100 frames; feed 1 has one frame 8 ms late.
  PhaseInput input{.name = "step", .offered_mbps = 240, .delay_basis = DelayBasis::one_way};
  FeedRecord a = feed(
      0, 10, {}, [](std::uint32_t seq) { return static_cast<std::int32_t>(50'000 + seq % 100); });
  FeedRecord b = feed(1, 10, {}, [](std::uint32_t seq) { return seq == 77 ? 9000 : 1000; });
  input.feeds = {a, b};
  const PhaseFigures f = measure_phase(input, 0.3);
  EXPECT_EQ(f.delay_samples, 600u);
  EXPECT_DOUBLE_EQ(f.delay_variation_ms.max, 8.0);
  EXPECT_LT(f.delay_variation_ms.p99, 0.1);  // one frame in 600 is above p99
  EXPECT_NEAR(f.delay_variation_ms.p50, 0.0, 0.05);
}

TEST(PhaseFigures, HalfTheRttIsTheDelayWhenTheClocksAreNotKnownToAgree) {
  PhaseInput input{.name = "step", .offered_mbps = 240, .delay_basis = DelayBasis::half_rtt};
  FeedRecord f0 = feed(0, 4, {}, [](std::uint32_t) { return 123'456; });  // clocks far apart
  for (double t = 0; t < 4; t += 0.25) f0.rtt.push_back({.t = t, .rtt_ms = t < 2 ? 100.0 : 104.0});
  input.feeds = {f0};
  const PhaseFigures f = measure_phase(input, 0.3);
  EXPECT_EQ(f.delay_basis, DelayBasis::half_rtt);
  EXPECT_DOUBLE_EQ(f.delay_ms, 50.0);  // the median of 8 x 50 and 8 x 52 (nearest rank)
  EXPECT_DOUBLE_EQ(f.by_second[0].delay_ms, 50.0);
  EXPECT_DOUBLE_EQ(f.by_second[3].delay_ms, 52.0);
}

TEST(PhaseFigures, SamplesOutsideTheScheduleAreIgnoredAndMissingOnesAreFlagged) {
  PhaseInput input{.name = "step", .offered_mbps = 240};
  FeedRecord f0 = feed(0, 2, {}, steady);
  f0.delivered.push_back({.frame_seq = 4'000'000'000u, .transit_us = -5});  // never offered
  f0.delivered.erase(f0.delivered.begin());  // the receiver counted frame 0, no sample came
  input.feeds = {f0};
  const PhaseFigures f = measure_phase(input, 0.3);
  EXPECT_EQ(f.frames_delivered, 59u);
  EXPECT_EQ(f.frames_lost, 1u);
  EXPECT_FALSE(f.samples_complete);  // 60 reported, 59 samples in the schedule
  EXPECT_EQ(f.delay_samples, 59u);
}

TEST(PhaseFigures, TheWarmUpsFramesAndRttReadingsAreNotMeasured) {
  // 1 s of warm-up then 3 s measured: the warm-up's frames are lost or slow (a slow start),
  // and its RTT readings high; none of it shows, and the seconds count from its end.
  std::set<std::uint32_t> lost{3, 4, 5};
  PhaseInput input{
      .name = "step", .offered_mbps = 240, .delay_basis = DelayBasis::one_way, .warm_up_s = 1};
  FeedRecord f0 = feed(0, 4, lost, [](std::uint32_t seq) { return seq < 30 ? 90'000 : 2000; });
  for (double t = 0; t < 4; t += 0.5) f0.rtt.push_back({.t = t, .rtt_ms = t < 1 ? 400.0 : 4.0});
  input.feeds = {f0};
  PhaseFigures f = measure_phase(input, 0.3);
  EXPECT_DOUBLE_EQ(f.seconds, 3);
  EXPECT_EQ(f.frames_offered, 90u);
  EXPECT_EQ(f.frames_lost, 0u);
  EXPECT_DOUBLE_EQ(f.delay_ms, 2.0);
  EXPECT_DOUBLE_EQ(f.delay_variation_ms.max, 0.0);
  EXPECT_DOUBLE_EQ(f.rate_mbps, 30 * 8.0);
  EXPECT_EQ(f.by_second.size(), 3u);
  input.delay_basis = DelayBasis::half_rtt;
  f = measure_phase(input, 0.3);
  EXPECT_DOUBLE_EQ(f.delay_ms, 2.0);  // half of 4 ms; the warm-up's 400 ms are not read
  EXPECT_DOUBLE_EQ(f.by_second[0].delay_ms, 2.0);
}

TEST(PhaseFigures, RetransmissionRatioIsRetransmittedOverSent) {
  PhaseInput input{.name = "step", .offered_mbps = 240};
  FeedRecord f0 = feed(0, 1, {}, steady);
  f0.retransmits = 30;
  f0.packets_sent = 20'000;
  FeedRecord f1 = feed(1, 1, {}, steady);
  f1.packets_sent = 10'000;
  input.feeds = {f0, f1};
  EXPECT_DOUBLE_EQ(measure_phase(input, 0.3).retransmission_ratio, 0.001);
}

TEST(Percentiles, AreNearestRank) {
  std::vector<double> values;
  for (int i = 100; i >= 1; --i) values.push_back(i);
  const Percentiles p = percentiles(values);
  EXPECT_EQ(p.p50, 50);
  EXPECT_EQ(p.p95, 95);
  EXPECT_EQ(p.p99, 99);
  EXPECT_EQ(p.max, 100);
  std::vector<double> none;
  EXPECT_EQ(percentiles(none).max, 0);
}

}  // namespace
}  // namespace hdstream
