#include "telemetry/stats_poller.hpp"

#include "common/clock.hpp"
#include "common/log.hpp"
#include "stats/snapshot_json.hpp"
#include "telemetry/http_client.hpp"

namespace hdstream {

StatsPoller::StatsPoller(asio::io_context& context, std::vector<Endpoint> hosts,
                         std::chrono::milliseconds interval)
    : context_(context), interval_(interval) {
  for (auto& host : hosts) {
    HostStatus status;
    status.address = std::move(host);
    status.error = "not polled yet";
    hosts_.push_back(std::move(status));
  }
}

void StatsPoller::start() {
  for (std::size_t i = 0; i < hosts_.size(); ++i) {
    auto strand = asio::make_strand(context_);
    timers_.push_back(std::make_shared<asio::steady_timer>(strand));
    asio::co_spawn(
        strand, [self = shared_from_this(), i] { return self->poll_loop(i); }, asio::detached);
  }
}

awaitable<void> StatsPoller::poll_loop(std::size_t index) {
  const Endpoint address = hosts_[index].address;  // immutable after construction
  auto timer = timers_[index];
  auto executor = co_await asio::this_coro::executor;
  std::string last_logged;
  for (;;) {
    {
      std::lock_guard lock(mutex_);
      if (stopped_) co_return;
    }
    const auto next = std::chrono::steady_clock::now() + interval_;
    auto reply = co_await http_get(executor, address, "/stats.json",
                                   std::max(interval_ * 2, std::chrono::milliseconds(1000)));
    std::vector<LabeledSnapshot> parsed;
    if (reply.error.empty() && reply.status != 200) {
      reply.error = fmt::format("{} answered HTTP {}", address.to_string(), reply.status);
    }
    if (reply.error.empty()) {
      try {
        parsed = parse_stats_document(reply.body);
      } catch (const StatsDocumentError& error) {
        reply.error = fmt::format("{}: {}", address.to_string(), error.what());
      }
    }
    if (reply.error != last_logged && !reply.error.empty()) {
      logger("monitor")->warn("{}", reply.error);
    }
    last_logged = reply.error;
    {
      std::lock_guard lock(mutex_);
      HostStatus& status = hosts_[index];
      status.error = reply.error;
      if (reply.error.empty()) {
        status.last_ok_ns = wall_clock_ns();
        ++status.polls_ok;
        // The monitor names a host as the operator typed it, not as it names itself.
        for (auto& source : parsed) {
          if (source.host.empty()) source.host = address.to_string();
        }
        status.snapshots = std::move(parsed);
      }
      if (stopped_) co_return;
    }
    timer->expires_at(next);
    error_code ignored;
    co_await timer->async_wait(nothrow(ignored));
  }
}

std::vector<HostStatus> StatsPoller::latest() const {
  std::lock_guard lock(mutex_);
  return hosts_;
}

void StatsPoller::stop() {
  std::lock_guard lock(mutex_);
  stopped_ = true;
  for (auto& timer : timers_) {
    asio::post(timer->get_executor(), [timer] { timer->cancel(); });
  }
}

}  // namespace hdstream
