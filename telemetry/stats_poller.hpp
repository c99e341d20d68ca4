// Polls several hosts' /stats.json on a timer and keeps the latest answer of each, for
// `hdstream monitor`. Hosts are polled concurrently; a slow or dead host only greys its rows.
//   auto poller = std::make_shared<StatsPoller>(io, hosts, 500ms);  poller->start();
//   for (const HostStatus& h : poller->latest()) ...;   poller->stop();
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/asio.hpp"
#include "stats/labeled_snapshot.hpp"
#include "transport/endpoint.hpp"

namespace hdstream {

// A decoded feed's picture as its receiving host served it (GET /thumbnail?feed=K).
struct HostPicture {
  std::string jpeg;
  std::uint64_t seq = 0;  // grows each time the picture changed
};

struct HostStatus {
  Endpoint address;
  std::string error;            // why the last poll failed (empty when it succeeded)
  std::int64_t last_ok_ns = 0;  // wall clock of the last successful poll (0: never)
  std::uint64_t polls_ok = 0;
  std::vector<LabeledSnapshot> snapshots;         // from the last successful poll
  std::map<std::uint16_t, HostPicture> pictures;  // by stream; with fetch_pictures only
};

struct StatsPollerOptions {
  std::chrono::milliseconds interval{500};
  // Also fetch the picture of every feed a host decodes, after each poll of its stats (the Qt
  // panel shows them; the console has no use for them). At most kMaxPicturesPerHost a host.
  bool fetch_pictures = false;
};

class StatsPoller : public std::enable_shared_from_this<StatsPoller> {
 public:
  // A host that reports more decoded feeds has its first ones shown: a stranger's /stats.json
  // never makes the monitor fetch (or hold) without bound.
  static constexpr std::size_t kMaxPicturesPerHost = 32;
  static constexpr std::size_t kMaxPictureBytes = 256 * 1024;

  StatsPoller(asio::io_context& context, std::vector<Endpoint> hosts, StatsPollerOptions options);

  void start();
  void stop();  // safe from any thread
  std::vector<HostStatus> latest() const;

 private:
  awaitable<void> poll_loop(std::size_t index);
  awaitable<void> fetch_pictures(std::size_t index, const std::vector<LabeledSnapshot>& sources);

  asio::io_context& context_;
  StatsPollerOptions options_;
  mutable std::mutex mutex_;
  std::vector<HostStatus> hosts_;
  std::vector<std::shared_ptr<asio::steady_timer>> timers_;
  bool stopped_ = false;
};

}  // namespace hdstream
