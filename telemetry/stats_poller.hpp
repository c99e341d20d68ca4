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
#include "common/endpoint.hpp"
#include "stats/labeled_snapshot.hpp"
#include "telemetry/http_client.hpp"

namespace hdstream {

// A decoded feed's picture as its receiving host served it (GET /thumbnail?feed=K).
struct HostPicture {
  std::string jpeg;
  std::uint64_t seq = 0;  // grows each time a picture changed (any host, any feed)
};

struct HostStatus {
  Endpoint address;
  std::string error;            // why the last poll failed (empty when it succeeded)
  std::int64_t last_ok_ns = 0;  // wall clock of the last successful poll (0: never)
  std::uint64_t polls_ok = 0;
  std::vector<LabeledSnapshot> snapshots;  // from the last successful poll
};

struct StatsPollerOptions {
  std::chrono::milliseconds interval{500};
  // Also fetch the picture of every feed a host decodes, after each poll of its stats (the Qt
  // panel shows them; the console has no use for them): at most kMaxPicturesPerHost a host,
  // all within one poll interval, so a host slow to serve them delays its stats by at most one
  // interval. A fetch that fails keeps the feed's last picture.
  bool fetch_pictures = false;
  HttpClientSettings http;  // TLS and credentials (--http-config); default: plain HTTP
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
  // The latest picture of `stream` served by the host polled at `address` (HOST:PORT as
  // Endpoint::to_string); none before one was fetched.
  std::shared_ptr<const HostPicture> picture(const std::string& address,
                                             std::uint16_t stream) const;

 private:
  awaitable<void> poll_loop(std::size_t index);
  awaitable<void> fetch_pictures(std::size_t index, const std::vector<LabeledSnapshot>& sources);

  asio::io_context& context_;
  StatsPollerOptions options_;
  mutable std::mutex mutex_;
  std::vector<HostStatus> hosts_;
  std::map<std::pair<std::string, std::uint16_t>, std::shared_ptr<const HostPicture>> pictures_;
  std::vector<std::size_t> picture_cursors_;  // by host; only its poll loop touches it
  std::uint64_t seq_ = 0;  // the last HostPicture::seq given: a picture that returns is new
  std::vector<std::shared_ptr<asio::steady_timer>> timers_;
  bool stopped_ = false;
};

}  // namespace hdstream
