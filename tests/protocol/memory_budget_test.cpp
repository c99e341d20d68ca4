#include "protocol/memory_budget.hpp"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace hdstream {
namespace {

TEST(MemoryBudget, EachSessionMayReserveAnEqualShare) {
  auto budget = std::make_shared<MemoryBudget>(1000, 4);
  EXPECT_EQ(budget->session_limit_bytes(), 250u);
  EXPECT_FALSE(budget->reserve(251));  // one session cannot take another's share
  auto a = budget->reserve(250);
  auto b = budget->reserve(250);
  auto c = budget->reserve(250);
  auto d = budget->reserve(250);
  ASSERT_TRUE(a && b && c && d);
  EXPECT_EQ(budget->reserved_bytes(), 1000u);
  EXPECT_EQ(budget->unreserved_bytes(), 0u);
  EXPECT_FALSE(budget->reserve(1));            // a fifth session finds nothing left
  EXPECT_EQ(budget->reserved_bytes(), 1000u);  // and a refusal reserves nothing
}

TEST(MemoryBudget, AReservationIsGivenBackWhenItGoes) {
  auto budget = std::make_shared<MemoryBudget>(100, 1);
  {
    auto held = budget->reserve(60);
    ASSERT_TRUE(held);
    EXPECT_EQ(held->bytes(), 60u);
    EXPECT_FALSE(budget->reserve(41));
    MemoryReservation moved = std::move(*held);  // moving does not double-count
    EXPECT_EQ(budget->reserved_bytes(), 60u);
    held->reset();  // the moved-from one gives back nothing
    EXPECT_EQ(budget->reserved_bytes(), 60u);
    moved = *budget->reserve(40);  // assignment gives the old 60 back first
    EXPECT_EQ(budget->reserved_bytes(), 40u);
  }
  EXPECT_EQ(budget->reserved_bytes(), 0u);
  EXPECT_TRUE(budget->reserve(100));
}

TEST(MemoryBudget, HostileAmountsAreRefusedWithoutWrapping) {
  auto budget = std::make_shared<MemoryBudget>(UINT64_MAX, 0);  // 0 sessions counts as 1
  EXPECT_EQ(budget->sessions(), 1u);
  auto most = budget->reserve(UINT64_MAX - 1);
  ASSERT_TRUE(most);
  EXPECT_FALSE(budget->reserve(2));  // reserved + 2 would wrap to 0
  EXPECT_TRUE(budget->reserve(1));
  auto none = std::make_shared<MemoryBudget>(0, 3);
  EXPECT_TRUE(none->reserve(0));
  EXPECT_FALSE(none->reserve(1));
}

TEST(MemoryBudget, ConcurrentSessionsNeverOverbook) {
  auto budget = std::make_shared<MemoryBudget>(10'000, 2);  // shares of 5,000
  std::atomic<bool> overbooked{false};
  std::atomic<int> granted{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20000; ++i) {
        auto held = budget->reserve(static_cast<std::uint64_t>(1000 + (i * 7 + t) % 4001));
        if (held) ++granted;
        if (budget->reserved_bytes() > budget->limit_bytes()) overbooked = true;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_FALSE(overbooked);
  EXPECT_GT(granted.load(), 0);
  EXPECT_EQ(budget->reserved_bytes(), 0u);
}

}  // namespace
}  // namespace hdstream
