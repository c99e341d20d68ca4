// common/cpu_room: what /proc/stat says is idle, what a window's arithmetic makes of it, and a
// real neighbour spinning a core seen as a core taken.
#include "common/cpu_room.hpp"

#include <gtest/gtest.h>

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <thread>
#include "common/clock.hpp"

namespace hdstream {
namespace {

using namespace std::chrono_literals;

TEST(CpuTicks, ReadTheAggregateLineOfProcStat) {
  // user nice system idle iowait irq softirq steal guest guest_nice
  const auto ticks = parse_cpu_ticks("cpu  4705 356 584 3699 23 0 12 7 100 0\ncpu0 1 2 3 4\n");
  ASSERT_TRUE(ticks);
  EXPECT_EQ(ticks->total, 4705u + 356 + 584 + 3699 + 23 + 0 + 12 + 7);  // guests are in user
  EXPECT_EQ(ticks->idle, 3699u);
  EXPECT_EQ(ticks->iowait, 23u);
  // An old kernel's four fields.
  const auto old = parse_cpu_ticks("cpu 10 0 5 85");
  ASSERT_TRUE(old);
  EXPECT_EQ(old->total, 100u);
  EXPECT_EQ(old->idle, 85u);
  EXPECT_EQ(old->iowait, 0u);
}

TEST(CpuTicks, AnythingElseIsRefused) {
  for (const char* text :
       {"", "cpu", "cpu  ", "cpu0 1 2 3 4", "intr 1 2 3 4", "cpu  1 2 3", "cpu  1 2 x 4",
        "cpu  1 2 3 -4", "cpu  1 2 3 4x", "cpu  99999999999999999999999 1 2 3",
        "cpu  1152921504606846977 1 2 3", " cpu  1 2 3 4", "CPU  1 2 3 4"}) {
    EXPECT_FALSE(parse_cpu_ticks(text)) << '"' << text << '"';
  }
}

TEST(CoresLeft, TheIdleShareOfTheMachineAndWhatTheProcessUsedItself) {
  const CpuTicks before{1000, 500, 0};
  // 200 ticks over 2 cores in a second, half of them idle: one core left.
  EXPECT_DOUBLE_EQ(cores_left(before, {1200, 600}, 0.0, 1.0, 2), 1.0);
  // iowait is idle too; when it goes down (proc(5)) what it lost counts as nothing.
  EXPECT_DOUBLE_EQ(cores_left(before, {1200, 550, 50}, 0.0, 1.0, 2), 1.0);
  EXPECT_DOUBLE_EQ(cores_left({1000, 500, 50}, {1200, 600, 10}, 0.0, 1.0, 2), 1.0);
  // The process used half a core of the busy half itself: that is its own, so 1.5 left.
  EXPECT_DOUBLE_EQ(cores_left(before, {1200, 600}, 0.5, 1.0, 2), 1.5);
  // Never more than the machine, never less than nothing.
  EXPECT_DOUBLE_EQ(cores_left(before, {1200, 1200}, 1.0, 1.0, 2), 2.0);
  EXPECT_DOUBLE_EQ(cores_left(before, {1200, 500}, -3.0, 1.0, 2), 0.0);
  // Nothing measured (no ticks passed, a counter went back, no time): every core.
  EXPECT_DOUBLE_EQ(cores_left(before, before, 0.0, 1.0, 2), 2.0);
  EXPECT_DOUBLE_EQ(cores_left(before, {1200, 400}, 0.0, 1.0, 2), 2.0);
  EXPECT_DOUBLE_EQ(cores_left(before, {1200, 600}, 0.0, 0.0, 2), 2.0);
}

TEST(CpuRoom, AnotherProcessSpinningACoreLeavesAtMostTheOthers) {
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const pid_t spinner = fork();
  ASSERT_GE(spinner, 0);
  if (spinner == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlives the test
    while (true) {
    }
  }
  const CpuRoom room;
  const double left = room.cores_left(500ms);
  kill(spinner, SIGKILL);
  waitpid(spinner, nullptr, 0);
  // The spinner takes a core, or shares one with other work when the machine is full: either
  // way at least most of a core is not left. (10 ms ticks over 500 ms: about 1 % resolution.)
  EXPECT_GE(left, 0.0);
  EXPECT_LE(left, static_cast<double>(cores) - 0.6);
}

TEST(CpuRoom, ThisProcessSpinningCountsAsItsOwn) {
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  std::atomic<bool> stop{false};
  double spun_s = 0;  // the spinner's own CPU time
  const auto outer_start = std::chrono::steady_clock::now();
  const CpuRoom room;
  std::thread spinner([&] {
    while (!stop.load(std::memory_order_relaxed)) {
    }
    spun_s = cpu_clock_seconds(CLOCK_THREAD_CPUTIME_ID);
  });
  const double left = room.cores_left(500ms);
  stop = true;
  spinner.join();
  const double outer_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - outer_start).count();
  // Whatever else the machine does, the core share our own spinner got is counted as left: the
  // process's CPU over the window is at least the spinner's over a longer one.
  EXPECT_GT(spun_s, 0.0);
  EXPECT_GE(left, std::min(spun_s / outer_s, static_cast<double>(cores)) - 0.05)
      << "spun " << spun_s << " s in " << outer_s << " s";
  EXPECT_LE(left, static_cast<double>(cores));
}

}  // namespace
}  // namespace hdstream
