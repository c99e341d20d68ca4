// One TCP listener and the set of sessions it accepted, in the style of Asio's
// connection_manager: the accept loop runs on the listener's strand, each accepted connection on
// a strand of its own, and stop() closes the acceptor and every live session. Shared by the tcp
// and mtcp receivers and the telemetry server.
//   auto listener = std::make_shared<TcpListener>(io, "tcp");
//   listen_for_feeds(listener->acceptor(), ...);   // open, bind, listen (transport/)
//   listener->start([](tcp::socket s) { return std::make_shared<MySession>(std::move(s)); });
//   ...  listener->stop();
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "common/asio.hpp"
#include "common/endpoint.hpp"

namespace hdstream {

// A connection served by a TcpListener.
class TcpSession {
 public:
  virtual ~TcpSession() = default;
  // Serves the connection on its socket's strand; the listener forgets the session when it
  // returns.
  virtual awaitable<void> run() = 0;
  // Closes the connection; called from any thread (post to the socket's strand). run() then
  // ends soon after.
  virtual void close() = 0;
};

struct TcpListenerOptions {
  // Beyond this many live sessions a new connection is closed at once (logged, rate-limited).
  std::size_t max_sessions = std::numeric_limits<std::size_t>::max();
  // The same for the live sessions of one peer address: one client cannot take every session.
  std::size_t max_sessions_per_address = std::numeric_limits<std::size_t>::max();
  // Out of file descriptors (EMFILE, ENFILE, ENOBUFS, ENOMEM): accepting again at once would
  // fail again at once, so the loop pauses this long. The connection waits in the backlog.
  std::chrono::milliseconds exhausted_pause{100};
};

class TcpListener : public std::enable_shared_from_this<TcpListener> {
 public:
  // Returns the session for a new connection, or null to close it. Called on the listener's
  // strand.
  using MakeSession = std::function<std::shared_ptr<TcpSession>(tcp::socket socket)>;

  // `component` names the logger for accept failures.
  TcpListener(asio::io_context& context, std::string component, TcpListenerOptions options = {});

  // Open, bind and listen it before start(). Its executor is the listener's strand.
  tcp::acceptor& acceptor() { return acceptor_; }
  const tcp::acceptor& acceptor() const { return acceptor_; }
  // Where it listens (after open and bind).
  Endpoint local_endpoint() const;

  void start(MakeSession make_session);
  // Closes the acceptor and every live session; safe from any thread, more than once, and
  // before start().
  void stop();

  std::size_t live_sessions() const;
  // Accepts that failed (each logged, rate-limited); the loop carries on after each.
  std::uint64_t accept_failures() const;

 private:
  awaitable<void> accept_loop(MakeSession make_session);
  // Why a connection from `peer` is refused now, or empty when there is room. Under mutex_.
  std::string no_room_for(const asio::ip::address& peer) const;
  void launch(std::shared_ptr<TcpSession> session, asio::any_io_executor executor);
  void forget(const std::shared_ptr<TcpSession>& session);

  asio::io_context& context_;
  std::string component_;
  TcpListenerOptions options_;
  tcp::acceptor acceptor_;
  asio::steady_timer pause_;  // on the listener's strand
  mutable std::mutex mutex_;  // guards the members below
  std::unordered_map<std::shared_ptr<TcpSession>, asio::ip::address> sessions_;  // -> its peer
  std::map<asio::ip::address, std::size_t> sessions_per_address_;
  std::uint64_t accept_failures_ = 0;
  bool stopped_ = false;
};

}  // namespace hdstream
