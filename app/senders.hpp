// N sending feeds sharing one runtime: a source, a transport and a paced pipeline per feed.
// Used by `send` and `demo`.
//   SenderGroup senders(runtime, stats, plan, [&] { all_done(); });
//   senders.start();
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <vector>

#include "app/options.hpp"
#include "app/runtime.hpp"
#include "app/send_plan.hpp"
#include "common/endpoint.hpp"
#include "pipeline/feed_sender.hpp"
#include "pipeline/source.hpp"
#include "stats/registry.hpp"
#include "transport/transport.hpp"

namespace hdstream {

class SenderGroup {
 public:
  // Validates the plan (throws UsageError) and builds every feed; nothing runs until start().
  SenderGroup(Runtime& runtime, StatsRegistry& stats, const SendPlan& plan,
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
