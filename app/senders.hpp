// N sending feeds sharing one runtime: a source, a transport and a paced pipeline per feed,
// each made from its FeedSetup (app/send_plan.hpp). Used by `send`, `demo`, `bench` and
// `check`'s capacity probe.
//   SenderGroup senders(runtime, stats, plan_feeds(plan), [&] { all_done(); });
//   senders.start();
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <vector>

#include "app/runtime.hpp"
#include "app/send_plan.hpp"
#include "pipeline/feed_sender.hpp"
#include "pipeline/source.hpp"
#include "stats/registry.hpp"
#include "transport/transport.hpp"

namespace hdstream {

class SenderGroup {
 public:
  // Builds every feed's source and transport (throws UsageError / FeedRequestError naming
  // what to fix); nothing runs until start().
  SenderGroup(Runtime& runtime, StatsRegistry& stats, const std::vector<FeedSetup>& feeds,
              std::function<void()> on_all_done);

  void start();
  // Feeds that could not open or whose session broke.
  std::size_t failures() const { return failures_.load(); }

 private:
  struct Feed {
    std::shared_ptr<SenderTransport> transport;
    std::unique_ptr<FrameSource> source;
    FeedPlan plan;
    asio::any_io_executor strand;
  };

  Runtime& runtime_;
  StatsRegistry& stats_;
  std::vector<Feed> feeds_;
  std::function<void()> on_all_done_;
  std::atomic<std::size_t> running_{0};
  std::atomic<std::size_t> failures_{0};
};

}  // namespace hdstream
