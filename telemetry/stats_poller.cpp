#include "telemetry/stats_poller.hpp"

#include "common/clock.hpp"
#include "common/log.hpp"
#include "stats/snapshot_json.hpp"
#include "telemetry/http_client.hpp"

namespace hdstream {

StatsPoller::StatsPoller(asio::io_context& context, std::vector<Endpoint> hosts,
                         StatsPollerOptions options)
    : context_(context), options_(options) {
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
    const auto next = std::chrono::steady_clock::now() + options_.interval;
    auto reply =
        co_await http_get(executor, address, "/stats.json",
                          std::max(options_.interval * 2, std::chrono::milliseconds(1000)));
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
        status.snapshots = parsed;
      }
      if (stopped_) co_return;
    }
    if (options_.fetch_pictures && reply.error.empty()) co_await fetch_pictures(index, parsed);
    timer->expires_at(next);
    error_code ignored;
    co_await timer->async_wait(nothrow(ignored));
  }
}

awaitable<void> StatsPoller::fetch_pictures(std::size_t index,
                                            const std::vector<LabeledSnapshot>& sources) {
  const Endpoint address = hosts_[index].address;
  auto executor = co_await asio::this_coro::executor;
  std::vector<std::uint16_t> decoded;
  for (const auto& source : sources) {
    if (source.snapshot.role != Role::recv) continue;
    for (const auto& stream : source.snapshot.streams) {
      if (stream.media && decoded.size() < kMaxPicturesPerHost) decoded.push_back(stream.stream);
    }
  }
  std::map<std::uint16_t, std::string> fetched;
  for (const std::uint16_t stream : decoded) {
    auto reply = co_await http_get(executor, address, fmt::format("/thumbnail?feed={}", stream),
                                   options_.interval, kMaxPictureBytes);
    // None yet (404), an older hdstream, a slow host: that feed shows NO SIGNAL until next time.
    if (reply.error.empty() && reply.status == 200) fetched[stream] = std::move(reply.body);
  }
  std::lock_guard lock(mutex_);
  auto& pictures = hosts_[index].pictures;
  std::erase_if(pictures, [&](const auto& entry) { return !fetched.contains(entry.first); });
  for (auto& [stream, jpeg] : fetched) {
    HostPicture& picture = pictures[stream];
    if (picture.jpeg != jpeg) {
      picture.jpeg = std::move(jpeg);
      ++picture.seq;
    }
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
