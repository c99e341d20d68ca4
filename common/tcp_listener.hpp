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
#include <utility>

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

 protected:
  // Its peer has proved itself (a feed's HELLO accepted): the connection no longer counts among
  // the listener's pending ones. Once, on the session's strand; a session that never calls it
  // stays pending until it ends.
  void established() {
    if (auto done = std::exchange(on_established_, nullptr)) done();
  }

 private:
  friend class TcpListener;
  std::function<void()> on_established_;
};

struct TcpListenerOptions {
  // Beyond this many live sessions a new connection is closed at once (logged, rate-limited).
  std::size_t max_sessions = std::numeric_limits<std::size_t>::max();
  // The same for the live sessions of one peer address: one client cannot take every session.
  std::size_t max_sessions_per_address = std::numeric_limits<std::size_t>::max();
  // Connections not yet established (TcpSession::established()) cost a descriptor and a little
  // memory for whoever opens them. Per peer address, a connection beyond this many is closed at
  // once. In total, at this many the oldest pending connection is closed to make room: silent
  // connections held open cannot keep out a sender whose handshake takes a round trip.
  std::size_t max_pending = std::numeric_limits<std::size_t>::max();
  std::size_t max_pending_per_address = std::numeric_limits<std::size_t>::max();
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
  std::size_t pending_sessions() const;
  // Accepts that failed (each logged, rate-limited); the loop carries on after each.
  std::uint64_t accept_failures() const;

 private:
  awaitable<void> accept_loop(MakeSession make_session);
  // Why a connection from `peer` is refused now, or empty when there is room. Under mutex_.
  std::string no_room_for(const asio::ip::address& peer) const;
  // At max_pending: the pending session to close for a newcomer. Under mutex_.
  std::shared_ptr<TcpSession> make_pending_room();
  void mark_established(TcpSession* session);
  void launch(std::shared_ptr<TcpSession> session, asio::any_io_executor executor);
  void forget(const std::shared_ptr<TcpSession>& session);

  asio::io_context& context_;
  std::string component_;
  TcpListenerOptions options_;
  tcp::acceptor acceptor_;
  asio::steady_timer pause_;  // on the listener's strand
  mutable std::mutex mutex_;  // guards the members below
  struct Live {
    std::shared_ptr<TcpSession> session;
    asio::ip::address peer;
    std::uint64_t accepted = 0;  // accept order: the oldest pending goes first
    bool pending = true;
  };
  std::unordered_map<TcpSession*, Live> sessions_;
  std::map<asio::ip::address, std::size_t> sessions_per_address_;
  std::map<asio::ip::address, std::size_t> pending_per_address_;
  std::size_t pending_ = 0;
  std::uint64_t accepted_ = 0;
  std::uint64_t accept_failures_ = 0;
  bool stopped_ = false;
};

}  // namespace hdstream
