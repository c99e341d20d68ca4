#include "app/probe_run.hpp"

#include "app/senders.hpp"

namespace hdstream {
namespace {

CommonOptions quiet(CommonOptions common) {
  common.stats_file = "-";
  return common;
}

std::vector<FeedSetup> probe_feeds(const SendPlan& plan, std::chrono::nanoseconds duration) {
  SendPlan probe = plan;
  probe.options.duration = duration;
  std::vector<FeedSetup> feeds = plan_feeds(probe);
  for (auto& feed : feeds) {
    feed.request.probe = true;
    feed.request.connect_patience = std::chrono::seconds(3);
  }
  return feeds;
}

}  // namespace

ProbeRun::ProbeRun(const CommonOptions& common, const SendPlan& plan,
                   std::chrono::nanoseconds duration)
    : feeds_(probe_feeds(plan, duration)), run_(quiet(common)) {
  stats_ = &run_.add_registry(
      Role::send, plan.options.streams, std::string(to_string(plan.options.transport)),
      {.lines = Lines::never, .record = true, .on_sample = [this](const Snapshot& snapshot) {
         if (observer_) observer_(snapshot);
       }});
}

Snapshot ProbeRun::run() {
  SenderGroup senders(run_.runtime(), *stats_, feeds_, run_.part());
  run_.start_stats(std::chrono::milliseconds(250));
  senders.start();
  run_.run();
  return stats_->sample();
}

}  // namespace hdstream
