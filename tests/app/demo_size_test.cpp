// app/demo_size: how many of its feeds the demo runs, from what a frame of its clip costs.
#include "app/demo_size.hpp"

#include <gtest/gtest.h>

namespace hdstream {
namespace {

constexpr double kFps = 30000.0 / 1001.0;

TEST(DemoSize, AFastMachineRunsEveryFeed) {
  // 4.2 ms a frame (AMD EPYC): 5 feeds on screens are ~1.3 of 2 cores, within 70 %.
  const DemoSize size = size_demo(5, 0.0042, kFps, {2, 2.0}, DemoScreens::x11);
  EXPECT_EQ(size.feeds, 5u);
  EXPECT_NEAR(size.cores_per_feed, 0.0042 * kFps * kFeedCostOnX, 1e-9);
}

TEST(DemoSize, ASlowerMachineRunsWhatFitsAndScreensCostMore) {
  // 9.7 ms a frame (a 2.0 GHz Xeon's): 0.61 cores a feed on screens, 0.49 decoded alone.
  EXPECT_EQ(size_demo(5, 0.0097, kFps, {2, 2.0}, DemoScreens::x11).feeds, 2u);
  EXPECT_EQ(size_demo(5, 0.0097, kFps, {2, 2.0}, DemoScreens::none).feeds, 2u);
  EXPECT_EQ(size_demo(5, 0.0097, kFps, {4, 4.0}, DemoScreens::x11).feeds, 4u);
  // Wayland's compositing costs more: 4.1 ms a frame fits four there, five on X.
  EXPECT_EQ(size_demo(5, 0.0041, kFps, {2, 2.0}, DemoScreens::wayland).feeds, 4u);
  EXPECT_EQ(size_demo(5, 0.0041, kFps, {2, 2.0}, DemoScreens::x11).feeds, 5u);
  // The rate counts: at 59.94 fps a feed costs twice as much.
  EXPECT_EQ(size_demo(5, 0.0042, 2 * kFps, {2, 2.0}, DemoScreens::x11).feeds, 2u);
}

TEST(DemoSize, AMachineBusyWithOtherWorkRunsWhatFitsInWhatIsLeft) {
  // 5.0 ms a frame (this machine): 0.31 cores a feed on screens. Both cores free fit four; one
  // core kept busy by another program leaves room for two.
  EXPECT_EQ(size_demo(5, 0.0050, kFps, {2, 2.0}, DemoScreens::x11).feeds, 4u);
  EXPECT_EQ(size_demo(5, 0.0050, kFps, {2, 1.0}, DemoScreens::x11).feeds, 2u);
  EXPECT_EQ(size_demo(5, 0.0050, kFps, {2, 0.0}, DemoScreens::x11).feeds, 1u);
  // What is left is never more than the machine.
  EXPECT_EQ(size_demo(5, 0.0050, kFps, {2, 9.0}, DemoScreens::x11).feeds, 4u);
  const std::string line = describe(size_demo(5, 0.0050, kFps, {2, 1.04}, DemoScreens::x11));
  EXPECT_NE(line.find("2 of 5 feeds"), std::string::npos) << line;
  EXPECT_NE(line.find("(1.0 left by other work)"), std::string::npos) << line;
  const std::string idle = describe(size_demo(5, 0.0050, kFps, {2, 1.95}, DemoScreens::x11));
  EXPECT_EQ(idle.find("other work"), std::string::npos) << idle;
}

TEST(DemoSize, AlwaysAtLeastOneFeedAndNeverMoreThanWanted) {
  EXPECT_EQ(size_demo(5, 1.0, kFps, {2, 2.0}, DemoScreens::x11).feeds,
            1u);  // a second a frame: still one
  EXPECT_EQ(size_demo(3, 0.0001, kFps, {64, 64.0}, DemoScreens::x11).feeds, 3u);
  EXPECT_EQ(size_demo(5, 0.0, kFps, {2, 2.0}, DemoScreens::x11).feeds,
            5u);  // nothing measured: as asked
  EXPECT_EQ(size_demo(5, 0.01, kFps, {0, 0.0}, DemoScreens::x11).feeds,
            1u);  // no core count: one core
}

TEST(DemoSize, TheLineSaysWhatWasMeasuredAndHowToInsist) {
  const std::string line = describe(size_demo(5, 0.0097, kFps, {2, 2.0}, DemoScreens::x11));
  EXPECT_NE(line.find("2 of 5 feeds"), std::string::npos) << line;
  EXPECT_NE(line.find("9.7 ms"), std::string::npos) << line;
  EXPECT_NE(line.find("--streams 5"), std::string::npos) << line;
  EXPECT_EQ(line.find('\n'), std::string::npos) << line;
  const std::string all = describe(size_demo(5, 0.0042, kFps, {2, 2.0}, DemoScreens::x11));
  EXPECT_NE(all.find("demo: 5 feeds:"), std::string::npos) << all;
  EXPECT_EQ(all.find("--streams"), std::string::npos) << all;
}

}  // namespace
}  // namespace hdstream
