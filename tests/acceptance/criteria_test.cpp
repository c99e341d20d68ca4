// The acceptance criteria: defaults, a destination's sla over them, and each criterion's
// verdict flipping exactly at its threshold.
#include "acceptance/criteria.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace hdstream {
namespace {

using namespace std::chrono_literals;

PhaseFigures clean_phase() {
  PhaseFigures f{.name = "soak", .offered_mbps = 1350, .rate_mbps = 1350, .delay_ms = 2};
  f.delay_variation_ms = {.p50 = 0.1, .p95 = 0.5, .p99 = 1, .max = 3};
  f.delay_measured = true;
  f.delay_samples = 100'000;
  f.frames_offered = 100'000;
  f.by_second.resize(900);
  f.seconds_counted = 900;
  return f;
}

const CriterionResult& named(const std::vector<CriterionResult>& results, std::string_view name) {
  auto it =
      std::find_if(results.begin(), results.end(), [&](const auto& r) { return r.name == name; });
  if (it == results.end()) throw std::runtime_error("no criterion " + std::string(name));
  return *it;
}

TEST(Criteria, ASlaOverridesOnlyWhatItSets) {
  const AcceptanceCriteria defaults = criteria_from({}, 270e6);
  EXPECT_DOUBLE_EQ(defaults.max_loss_ratio, AcceptanceCriteria{}.max_loss_ratio);
  SlaPreset sla{.min_rate_bps = 243'000'000, .max_delay = 20ms, .min_availability = 0.99};
  const AcceptanceCriteria c = criteria_from(sla, 270e6);
  EXPECT_DOUBLE_EQ(c.min_rate_fraction, 0.9);
  EXPECT_DOUBLE_EQ(c.max_delay_ms, 20);
  EXPECT_DOUBLE_EQ(c.min_availability, 0.99);
  EXPECT_DOUBLE_EQ(c.max_delay_variation_ms, defaults.max_delay_variation_ms);
}

TEST(Criteria, ACleanSoakPassesEveryCriterionWithAvailabilityJudgedOnTheSoakOnly) {
  const AcceptanceCriteria c;
  const auto soak = evaluate(c, clean_phase(), true);
  EXPECT_TRUE(all_pass(soak));
  EXPECT_EQ(soak.size(), 5u);
  EXPECT_EQ(evaluate(c, clean_phase(), false).size(), 4u);
  EXPECT_EQ(named(soak, "frame delay variation (p99)").threshold, "≤ 10.000 ms");
}

TEST(Criteria, NothingMeasuredFailsTheDelayCriteriaInsteadOfReadingAsZero) {
  PhaseFigures f = clean_phase();
  f.delay_measured = false;
  f.delay_ms = 0;
  f.delay_samples = 0;
  f.delay_variation_ms = {};
  const auto results = evaluate(AcceptanceCriteria{}, f, false);
  for (const char* name : {"frame delay", "frame delay variation (p99)"}) {
    EXPECT_FALSE(named(results, name).pass) << name;
    EXPECT_TRUE(named(results, name).measured.starts_with("not measured: ")) << name;
  }
}

TEST(Criteria, AVariationTheTransportHidesIsShownButNotJudged) {
  PhaseFigures f = clean_phase();
  f.delay_variation_ms.p99 = 50;  // would fail
  f.variation_not_judged = "libsrt delivers each packet at its send time plus the budget";
  const auto results = evaluate(AcceptanceCriteria{}, f, false);
  const auto& variation = named(results, "frame delay variation (p99)");
  EXPECT_FALSE(variation.judged);
  EXPECT_NE(variation.measured.find("not judged: libsrt"), std::string::npos);
  EXPECT_TRUE(all_pass(results));
}

TEST(Criteria, EachCriterionFlipsAtItsThreshold) {
  const AcceptanceCriteria c;
  PhaseFigures f = clean_phase();
  f.rate_mbps = 0.99 * 1350;
  EXPECT_TRUE(named(evaluate(c, f, true), "information rate").pass);
  f.rate_mbps = 0.989 * 1350;
  EXPECT_FALSE(named(evaluate(c, f, true), "information rate").pass);
  EXPECT_EQ(named(evaluate(c, f, true), "information rate").margin, "-1.3 Mbps");

  f = clean_phase();
  f.delay_ms = 150;
  EXPECT_TRUE(named(evaluate(c, f, true), "frame delay").pass);
  f.delay_ms = 150.01;
  EXPECT_FALSE(named(evaluate(c, f, true), "frame delay").pass);

  f = clean_phase();
  f.delay_variation_ms.p99 = 10.2;
  EXPECT_FALSE(named(evaluate(c, f, true), "frame delay variation (p99)").pass);

  f = clean_phase();
  f.frames_lost = 1;
  f.loss_ratio = 1e-5;
  EXPECT_TRUE(named(evaluate(c, f, true), "frame loss ratio").pass);
  f.frames_lost = 2;
  f.loss_ratio = 2e-5;
  const auto loss = named(evaluate(c, f, true), "frame loss ratio");
  EXPECT_FALSE(loss.pass);
  EXPECT_NE(loss.measured.find("2 of 100000 frames"), std::string::npos) << loss.measured;

  f = clean_phase();
  f.severely_errored_seconds = 1;
  f.availability = 1 - 1.0 / 900;  // 0.99889 < 0.999
  const auto availability = named(evaluate(c, f, true), "availability");
  EXPECT_FALSE(availability.pass);
  EXPECT_NE(availability.measured.find("1 severely errored of 900 s"), std::string::npos);
  EXPECT_TRUE(all_pass(evaluate(c, f, false)));  // a step is not judged on availability
}

}  // namespace
}  // namespace hdstream
