// Polls several hosts' /stats.json on a timer and keeps the latest answer of each, for
// `hdstream monitor`. Hosts are polled concurrently; a slow or dead host only greys its rows.
//   auto poller = std::make_shared<StatsPoller>(io, hosts, 500ms);  poller->start();
//   for (const HostStatus& h : poller->latest()) ...;   poller->stop();
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/asio.hpp"
#include "stats/labeled_snapshot.hpp"
#include "transport/endpoint.hpp"

namespace hdstream {

struct HostStatus {
  Endpoint address;
  std::string error;            // why the last poll failed (empty when it succeeded)
  std::int64_t last_ok_ns = 0;  // wall clock of the last successful poll (0: never)
  std::uint64_t polls_ok = 0;
  std::vector<LabeledSnapshot> snapshots;  // from the last successful poll
};

class StatsPoller : public std::enable_shared_from_this<StatsPoller> {
 public:
  StatsPoller(asio::io_context& context, std::vector<Endpoint> hosts,
              std::chrono::milliseconds interval);

  void start();
  void stop();  // safe from any thread
  std::vector<HostStatus> latest() const;

 private:
  awaitable<void> poll_loop(std::size_t index);

  asio::io_context& context_;
  std::chrono::milliseconds interval_;
  mutable std::mutex mutex_;
  std::vector<HostStatus> hosts_;
  std::vector<std::shared_ptr<asio::steady_timer>> timers_;
  bool stopped_ = false;
};

}  // namespace hdstream
