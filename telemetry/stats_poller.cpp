#include "telemetry/stats_poller.hpp"

#include <algorithm>

#include "common/clock.hpp"
#include "common/log.hpp"
#include "common/printable.hpp"
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
  picture_cursors_.assign(hosts_.size(), 0);
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
    auto reply = co_await http_get(executor, address, "/stats.json",
                                   std::max(options_.interval * 2, std::chrono::milliseconds(1000)),
                                   8u << 20, options_.http);
    std::vector<LabeledSnapshot> parsed;
    if (reply.error.empty() && reply.status != 200) {
      // The body's first line says why (a Host this server does not answer to, ...); printed as
      // plain ASCII, since the host may be anyone's.
      const std::string_view body(reply.body);
      reply.error = fmt::format("{} answered HTTP {}: {}", address.to_string(), reply.status,
                                printable(body.substr(0, body.find('\n')), 200));
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
    {
      std::lock_guard lock(mutex_);
      if (stopped_) co_return;
    }
    timer->expires_at(next);
    error_code ignored;
    co_await timer->async_wait(nothrow(ignored));
  }
}

awaitable<void> StatsPoller::fetch_pictures(std::size_t index,
                                            const std::vector<LabeledSnapshot>& sources) {
  const Endpoint& host = hosts_[index].address;  // immutable after construction
  const std::string address = host.to_string();
  auto executor = co_await asio::this_coro::executor;
  std::vector<std::uint16_t> decoded;
  for (const auto& source : sources) {
    if (source.snapshot.role != Role::recv) continue;
    for (const auto& stream : source.snapshot.streams) {
      if (stream.media && decoded.size() < kMaxPicturesPerHost) decoded.push_back(stream.stream);
    }
  }
  // Where the last poll stopped: on a long path, where one interval fetches only a few, every
  // feed gets its turn.
  std::size_t& cursor = picture_cursors_[index];
  if (!decoded.empty()) {
    std::rotate(decoded.begin(),
                decoded.begin() + static_cast<std::ptrdiff_t>(cursor % decoded.size()),
                decoded.end());
  }
  const auto deadline = std::chrono::steady_clock::now() + options_.interval;
  for (const std::uint16_t stream : decoded) {
    const auto left = deadline - std::chrono::steady_clock::now();
    {
      std::lock_guard lock(mutex_);
      if (stopped_ || left <= std::chrono::nanoseconds::zero()) break;
    }
    ++cursor;
    auto reply = co_await http_get(executor, host, fmt::format("/thumbnail?feed={}", stream), left,
                                   kMaxPictureBytes, options_.http);
    // None yet (404), an older hdstream, a slow host: the feed keeps its last picture.
    if (!reply.error.empty() || reply.status != 200) continue;
    std::lock_guard lock(mutex_);
    auto& picture = pictures_[{address, stream}];
    if (!picture || picture->jpeg != reply.body) {
      picture = std::make_shared<const HostPicture>(HostPicture{std::move(reply.body), ++seq_});
    }
  }
  // Feeds the host no longer decodes (or reports) lose their picture.
  std::lock_guard lock(mutex_);
  std::erase_if(pictures_, [&](const auto& entry) {
    return entry.first.first == address &&
           std::find(decoded.begin(), decoded.end(), entry.first.second) == decoded.end();
  });
}

std::shared_ptr<const HostPicture> StatsPoller::picture(const std::string& address,
                                                        std::uint16_t stream) const {
  std::lock_guard lock(mutex_);
  const auto found = pictures_.find({address, stream});
  return found == pictures_.end() ? nullptr : found->second;
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
