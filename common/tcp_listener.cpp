#include "common/tcp_listener.hpp"

#include <cerrno>
#include <exception>
#include <vector>

#include "common/log.hpp"
#include "common/log_rate_limit.hpp"

namespace hdstream {
namespace {
// Out of descriptors or kernel memory: the next accept fails the same way until some close.
bool resources_exhausted(const error_code& ec) {
  return ec == asio::error::no_descriptors || ec == asio::error::no_buffer_space ||
         ec == asio::error::no_memory || ec.value() == ENFILE;
}
}  // namespace

TcpListener::TcpListener(asio::io_context& context, std::string component,
                         TcpListenerOptions options)
    : context_(context),
      component_(std::move(component)),
      options_(options),
      acceptor_(asio::make_strand(context)),
      pause_(acceptor_.get_executor()) {}

void TcpListener::start(MakeSession make_session) {
  asio::co_spawn(
      acceptor_.get_executor(),
      [self = shared_from_this(), make = std::move(make_session)]() mutable {
        return self->accept_loop(std::move(make));
      },
      asio::detached);
}

Endpoint TcpListener::local_endpoint() const {
  const auto local = acceptor_.local_endpoint();
  return Endpoint{local.address().to_string(), local.port()};
}

std::string TcpListener::no_room_for(const asio::ip::address& peer) const {
  if (sessions_.size() >= options_.max_sessions) {
    return fmt::format("{} connections already open", sessions_.size());
  }
  const auto of_peer = sessions_per_address_.find(peer);
  if (of_peer != sessions_per_address_.end() &&
      of_peer->second >= options_.max_sessions_per_address) {
    return fmt::format("{} connections from {} already open", of_peer->second, peer.to_string());
  }
  const auto pending_of_peer = pending_per_address_.find(peer);
  if (pending_of_peer != pending_per_address_.end() &&
      pending_of_peer->second >= options_.max_pending_per_address) {
    return fmt::format("{} connections from {} still without a handshake", pending_of_peer->second,
                       peer.to_string());
  }
  return {};
}

std::shared_ptr<TcpSession> TcpListener::make_pending_room() {
  if (pending_ < options_.max_pending) return nullptr;
  // Only at the limit, under a flood: a scan of the live sessions per accepted connection. The
  // oldest pending connection goes: one held silent ages, while a sender's handshake completes
  // within a round trip or two, however many sub-connections it opens from one address.
  Live* oldest = nullptr;
  for (auto& [raw, live] : sessions_) {
    if (live.pending && (oldest == nullptr || live.accepted < oldest->accepted)) oldest = &live;
  }
  if (oldest == nullptr) return nullptr;
  oldest->pending = false;  // counted out now; forgotten once its run() ends
  --pending_;
  if (--pending_per_address_[oldest->peer] == 0) pending_per_address_.erase(oldest->peer);
  return oldest->session;
}

void TcpListener::mark_established(TcpSession* session) {
  std::lock_guard lock(mutex_);
  const auto found = sessions_.find(session);
  if (found == sessions_.end() || !found->second.pending) return;
  found->second.pending = false;
  --pending_;
  const auto of_peer = pending_per_address_.find(found->second.peer);
  if (of_peer != pending_per_address_.end() && --of_peer->second == 0) {
    pending_per_address_.erase(of_peer);
  }
}

awaitable<void> TcpListener::accept_loop(MakeSession make_session) {
  auto log = logger(component_);
  LogRateLimit failures_logged(5, std::chrono::seconds(10), log, "failed accepts");
  // A flood must not flood the log.
  LogRateLimit refusals_logged(5, std::chrono::seconds(10), log, "connections refused at a limit");
  for (;;) {
    error_code ec;
    auto socket = co_await acceptor_.async_accept(asio::make_strand(context_), nothrow(ec));
    if (ec) {
      if (ec == asio::error::operation_aborted || !acceptor_.is_open()) co_return;
      const bool exhausted = resources_exhausted(ec);
      {
        std::lock_guard lock(mutex_);
        ++accept_failures_;
      }
      if (auto held_back = failures_logged.admit()) {
        log->warn("accept failed: {}{}{}", ec.message(),
                  exhausted
                      ? fmt::format("; pausing accepts for {} ms", options_.exhausted_pause.count())
                      : std::string(),
                  held_back_note(*held_back));
      }
      if (exhausted) {
        // Accepting again at once would fail again at once: a busy loop on a full process.
        pause_.expires_after(options_.exhausted_pause);
        error_code ignored;
        co_await pause_.async_wait(nothrow(ignored));
      }
      continue;
    }
    error_code peer_ec;
    const asio::ip::address peer = socket.remote_endpoint(peer_ec).address();
    if (peer_ec) continue;  // gone already
    {
      std::lock_guard lock(mutex_);
      if (stopped_) co_return;  // the socket closes as it goes out of scope
      if (const std::string why = no_room_for(peer); !why.empty()) {
        if (auto held_back = refusals_logged.admit()) {
          log->warn("refusing a connection from {}: {}{}", peer.to_string(), why,
                    held_back_note(*held_back));
        }
        continue;
      }
    }
    auto executor = socket.get_executor();
    std::shared_ptr<TcpSession> session;
    try {
      session = make_session(std::move(socket));
    } catch (const std::exception& error) {
      log->warn("cannot serve a connection: {}", error.what());
    }
    if (!session) continue;
    std::shared_ptr<TcpSession> evicted;
    {
      std::lock_guard lock(mutex_);
      if (stopped_) co_return;
      evicted = make_pending_room();
      session->on_established_ = [self = weak_from_this(), raw = session.get()] {
        if (auto listener = self.lock()) listener->mark_established(raw);
      };
      sessions_.emplace(session.get(), Live{session, peer, accepted_++});
      ++sessions_per_address_[peer];
      ++pending_per_address_[peer];
      ++pending_;
    }
    if (evicted) {
      if (auto held_back = refusals_logged.admit()) {
        log->warn("closing a connection without a handshake to make room for one from {}{}",
                  peer.to_string(), held_back_note(*held_back));
      }
      evicted->close();
    }
    launch(std::move(session), std::move(executor));
  }
}

void TcpListener::launch(std::shared_ptr<TcpSession> session, asio::any_io_executor executor) {
  asio::co_spawn(
      std::move(executor), [session] { return session->run(); },
      [self = shared_from_this(), session](std::exception_ptr error) {
        if (error) {
          try {
            std::rethrow_exception(error);
          } catch (const std::exception& e) {
            logger(self->component_)->warn("a session ended with an error: {}", e.what());
          } catch (...) {
            logger(self->component_)->warn("a session ended with an unknown error");
          }
        }
        self->forget(session);
      });
}

void TcpListener::forget(const std::shared_ptr<TcpSession>& session) {
  std::lock_guard lock(mutex_);
  const auto found = sessions_.find(session.get());
  if (found == sessions_.end()) return;
  const asio::ip::address& peer = found->second.peer;
  const auto of_peer = sessions_per_address_.find(peer);
  if (of_peer != sessions_per_address_.end() && --of_peer->second == 0) {
    sessions_per_address_.erase(of_peer);
  }
  if (found->second.pending) {
    --pending_;
    const auto pending_of_peer = pending_per_address_.find(peer);
    if (pending_of_peer != pending_per_address_.end() && --pending_of_peer->second == 0) {
      pending_per_address_.erase(pending_of_peer);
    }
  }
  sessions_.erase(found);
}

void TcpListener::stop() {
  std::vector<std::shared_ptr<TcpSession>> live;
  {
    std::lock_guard lock(mutex_);
    stopped_ = true;
    for (const auto& [raw, entry] : sessions_) live.push_back(entry.session);
  }
  asio::post(acceptor_.get_executor(), [self = shared_from_this()] {
    error_code ignored;
    self->acceptor_.close(ignored);
    self->pause_.cancel();
  });
  // Outside the lock: a session's close() may take locks of its own.
  for (auto& session : live) session->close();
}

std::size_t TcpListener::live_sessions() const {
  std::lock_guard lock(mutex_);
  return sessions_.size();
}

std::size_t TcpListener::pending_sessions() const {
  std::lock_guard lock(mutex_);
  return pending_;
}

std::uint64_t TcpListener::accept_failures() const {
  std::lock_guard lock(mutex_);
  return accept_failures_;
}

}  // namespace hdstream
