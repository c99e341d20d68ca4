// TcpListener over real loopback sockets: every connection served, stop() with sessions live,
// the session cap, and a process out of file descriptors that pauses instead of spinning.
#include "common/tcp_listener.hpp"

#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <array>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

namespace hdstream {
namespace {

using namespace std::chrono_literals;

// What the sessions report; the test thread waits on it (no sleeps).
struct Tally {
  std::mutex mutex;
  std::condition_variable changed;
  int started = 0;
  int ended = 0;

  void add(int& field) {
    std::lock_guard lock(mutex);
    ++field;
    changed.notify_all();
  }
  bool wait_for(const int& field, int at_least, std::chrono::seconds timeout = 20s) {
    std::unique_lock lock(mutex);
    return changed.wait_for(lock, timeout, [&] { return field >= at_least; });
  }
  int get(const int& field) {
    std::lock_guard lock(mutex);
    return field;
  }
};

// For what only a query can tell (the listener forgets a session just after its run() ends).
bool wait_until(const std::function<bool()>& condition) {
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

// Echoes bytes until the peer closes or close() is called; an 'E' establishes it (as a feed's
// accepted HELLO does), so it no longer counts as pending.
class EchoSession : public TcpSession, public std::enable_shared_from_this<EchoSession> {
 public:
  EchoSession(tcp::socket socket, Tally& tally) : socket_(std::move(socket)), tally_(tally) {}
  awaitable<void> run() override {
    tally_.add(tally_.started);
    std::array<char, 64> buffer{};
    for (;;) {
      error_code ec;
      const std::size_t n = co_await socket_.async_read_some(asio::buffer(buffer), nothrow(ec));
      if (ec) break;
      if (buffer[0] == 'E') established();
      co_await asio::async_write(socket_, asio::buffer(buffer.data(), n), nothrow(ec));
      if (ec) break;
    }
    tally_.add(tally_.ended);
  }
  void close() override {
    asio::post(socket_.get_executor(), [self = shared_from_this()] {
      error_code ignored;
      self->socket_.close(ignored);
    });
  }

 private:
  tcp::socket socket_;
  Tally& tally_;
};

class TcpListenerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (auto& thread : threads_) thread = std::thread([this] { io_.run(); });
  }
  void TearDown() override {
    if (listener_) listener_->stop();
    work_.reset();
    for (auto& thread : threads_) thread.join();
  }

  // A listener bound to a free loopback port, not started.
  void bind(TcpListenerOptions options = {}) {
    listener_ = std::make_shared<TcpListener>(io_, "test", options);
    tcp::acceptor& acceptor = listener_->acceptor();
    const tcp::endpoint any(asio::ip::address_v4::loopback(), 0);
    acceptor.open(any.protocol());
    acceptor.bind(any);
    acceptor.listen();
    endpoint_ = acceptor.local_endpoint();
  }
  // ... serving every connection with an EchoSession.
  void listen(TcpListenerOptions options = {}) {
    bind(options);
    listener_->start([this](tcp::socket socket) -> std::shared_ptr<TcpSession> {
      return std::make_shared<EchoSession>(std::move(socket), tally_);
    });
  }

  // A blocking client; reads give up after 10 s rather than hang the test.
  tcp::socket connect() { return from("127.0.0.1"); }
  // ... from this loopback address (every 127/8 address is this host's).
  tcp::socket from(const char* address) {
    tcp::socket socket(client_io_);
    socket.open(tcp::v4());
    socket.bind(tcp::endpoint(asio::ip::make_address(address), 0));
    socket.connect(endpoint_);
    timeval timeout{10, 0};
    ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    return socket;
  }
  static bool echoes(tcp::socket& socket, char byte) {
    error_code ec;
    asio::write(socket, asio::buffer(&byte, 1), ec);
    char back = 0;
    if (!ec) asio::read(socket, asio::buffer(&back, 1), ec);
    return !ec && back == byte;
  }
  // True when the server closed the connection (EOF or reset), not a timeout.
  static bool closed_by_server(tcp::socket& socket) {
    char byte = 0;
    error_code ec;
    asio::read(socket, asio::buffer(&byte, 1), ec);
    return ec == asio::error::eof || ec == asio::error::connection_reset;
  }

  asio::io_context io_;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work_{
      asio::make_work_guard(io_)};
  std::array<std::thread, 2> threads_;
  asio::io_context client_io_;
  std::shared_ptr<TcpListener> listener_;
  tcp::endpoint endpoint_;
  Tally tally_;
};

TEST_F(TcpListenerTest, ServesManyConnectionsAndForgetsEachWhenItEnds) {
  listen();
  constexpr int kClients = 100;
  std::vector<tcp::socket> clients;
  for (int i = 0; i < kClients; ++i) clients.push_back(connect());
  for (int i = 0; i < kClients; ++i) {
    ASSERT_TRUE(echoes(clients[i], static_cast<char>('a' + i % 26))) << "client " << i;
  }
  EXPECT_EQ(listener_->live_sessions(), std::size_t{kClients});
  for (auto& client : clients) client.close();
  ASSERT_TRUE(tally_.wait_for(tally_.ended, kClients));
  EXPECT_TRUE(wait_until([&] { return listener_->live_sessions() == 0; }));
  EXPECT_EQ(listener_->accept_failures(), 0u);
}

TEST_F(TcpListenerTest, StopClosesTheAcceptorAndEveryLiveSession) {
  listen();
  constexpr int kClients = 20;
  std::vector<tcp::socket> clients;
  for (int i = 0; i < kClients; ++i) {
    clients.push_back(connect());
    ASSERT_TRUE(echoes(clients.back(), 'x'));
  }
  listener_->stop();
  ASSERT_TRUE(tally_.wait_for(tally_.ended, kClients));
  for (auto& client : clients) EXPECT_TRUE(closed_by_server(client));
  // The port no longer accepts: a connect is refused, or at best closed unserved.
  tcp::socket late(client_io_);
  error_code ec;
  late.connect(endpoint_, ec);
  if (!ec) {
    EXPECT_TRUE(closed_by_server(late));
  }
  EXPECT_EQ(tally_.get(tally_.started), kClients);
  listener_->stop();  // again: harmless
}

TEST_F(TcpListenerTest, StopBeforeStartIsHarmless) {
  auto listener = std::make_shared<TcpListener>(io_, "test");
  listener->stop();
  listener->stop();
  EXPECT_EQ(listener->live_sessions(), 0u);
}

TEST_F(TcpListenerTest, ConnectionsBeyondTheCapAreClosedAndTheOthersCarryOn) {
  listen(TcpListenerOptions{.max_sessions = 3});
  std::vector<tcp::socket> clients;
  for (int i = 0; i < 3; ++i) {
    clients.push_back(connect());
    ASSERT_TRUE(echoes(clients.back(), 'k'));
  }
  auto refused = connect();
  EXPECT_TRUE(closed_by_server(refused));
  for (auto& client : clients) EXPECT_TRUE(echoes(client, 'm'));
  // Room again once one ends.
  clients.front().close();
  ASSERT_TRUE(wait_until([&] { return listener_->live_sessions() < 3; }));
  auto next = connect();
  EXPECT_TRUE(echoes(next, 'n'));
}

// One client holding connections open cannot take every session: another address still gets in.
TEST_F(TcpListenerTest, ConnectionsFromOneAddressBeyondItsCapAreClosedAndOthersGetIn) {
  listen(TcpListenerOptions{.max_sessions_per_address = 2});
  std::vector<tcp::socket> hog;
  for (int i = 0; i < 2; ++i) {
    hog.push_back(from("127.0.0.1"));
    ASSERT_TRUE(echoes(hog.back(), 'h'));
  }
  auto third = from("127.0.0.1");
  EXPECT_TRUE(closed_by_server(third));
  auto other = from("127.0.0.2");
  EXPECT_TRUE(echoes(other, 'o'));
  for (auto& client : hog) EXPECT_TRUE(echoes(client, 'm'));
  // The address has room again once one of its connections ends.
  hog.front().close();
  ASSERT_TRUE(wait_until([&] { return listener_->live_sessions() == 2; }));
  auto again = from("127.0.0.1");
  EXPECT_TRUE(echoes(again, 'a'));
}

// Connections that never establish themselves are limited per address; an established one no
// longer counts.
TEST_F(TcpListenerTest,
       PendingConnectionsBeyondTheirAddressCapAreClosedAndEstablishedOnesFreeRoom) {
  listen(TcpListenerOptions{.max_pending_per_address = 2});
  std::vector<tcp::socket> pending;
  for (int i = 0; i < 2; ++i) {
    pending.push_back(connect());
    ASSERT_TRUE(echoes(pending.back(), 'p'));
  }
  EXPECT_EQ(listener_->pending_sessions(), 2u);
  auto third = connect();
  EXPECT_TRUE(closed_by_server(third));
  // One establishes itself: room for one more pending connection, and it stays served.
  ASSERT_TRUE(echoes(pending.front(), 'E'));
  ASSERT_TRUE(wait_until([&] { return listener_->pending_sessions() == 1; }));
  auto fourth = connect();
  EXPECT_TRUE(echoes(fourth, 'q'));
  EXPECT_EQ(listener_->pending_sessions(), 2u);
  EXPECT_EQ(listener_->live_sessions(), 3u);
  for (auto& client : pending) EXPECT_TRUE(echoes(client, 'm'));
}

// At the total, a newcomer evicts the oldest pending connection, whichever address holds the
// most; established connections are never evicted, and one that establishes itself leaves the
// count.
TEST_F(TcpListenerTest, AtThePendingTotalTheOldestPendingConnectionMakesRoom) {
  listen(TcpListenerOptions{.max_pending = 3});
  auto feed = from("127.0.0.2");
  ASSERT_TRUE(echoes(feed, 'E'));  // established: outside the pending count
  auto oldest = from("127.0.0.3");
  ASSERT_TRUE(echoes(oldest, 'a'));
  auto busy1 = from("127.0.0.2");  // the address holding the most, but younger
  ASSERT_TRUE(echoes(busy1, 'b'));
  auto busy2 = from("127.0.0.2");
  ASSERT_TRUE(echoes(busy2, 'c'));
  ASSERT_EQ(listener_->pending_sessions(), 3u);
  auto newcomer = from("127.0.0.4");
  EXPECT_TRUE(echoes(newcomer, 'd'));
  EXPECT_TRUE(closed_by_server(oldest));
  for (auto* client : {&feed, &busy1, &busy2, &newcomer}) EXPECT_TRUE(echoes(*client, 'm'));
  EXPECT_EQ(listener_->pending_sessions(), 3u);
  // The next newcomer evicts busy1; busy2 then establishes itself: two pending, not one.
  auto second = from("127.0.0.5");
  EXPECT_TRUE(echoes(second, 'e'));
  EXPECT_TRUE(closed_by_server(busy1));
  ASSERT_TRUE(echoes(busy2, 'E'));
  ASSERT_TRUE(wait_until([&] { return listener_->pending_sessions() == 2; }));
  EXPECT_TRUE(echoes(newcomer, 'n'));
  EXPECT_TRUE(echoes(second, 'n'));
}

TEST_F(TcpListenerTest, ASessionThatThrowsIsForgottenAndTheListenerCarriesOn) {
  bind();
  int made = 0;
  listener_->start([&](tcp::socket socket) -> std::shared_ptr<TcpSession> {
    if (made++ == 0) throw std::runtime_error("no session for the first");
    return std::make_shared<EchoSession>(std::move(socket), tally_);
  });
  auto first = connect();
  EXPECT_TRUE(closed_by_server(first));
  auto second = connect();
  EXPECT_TRUE(echoes(second, 'q'));
}

// Lowers RLIMIT_NOFILE for the scope: the next descriptor the process opens fails with EMFILE.
class DescriptorsExhausted {
 public:
  DescriptorsExhausted() {
    ::getrlimit(RLIMIT_NOFILE, &saved_);
    const int lowest_free = ::dup(STDERR_FILENO);
    ::close(lowest_free);
    rlimit tight = saved_;
    tight.rlim_cur = static_cast<rlim_t>(lowest_free);
    ::setrlimit(RLIMIT_NOFILE, &tight);
  }
  ~DescriptorsExhausted() { restore(); }
  void restore() { ::setrlimit(RLIMIT_NOFILE, &saved_); }

 private:
  rlimit saved_{};
};

TEST_F(TcpListenerTest, OutOfDescriptorsPausesAcceptingInsteadOfSpinningAndRecovers) {
#if defined(__SANITIZE_ADDRESS__)
  // UBSan's vptr check opens a pipe to probe memory; with no descriptor left it reports a false
  // "invalid vptr" on the listener's log call. The normal and TSan builds run this test.
  GTEST_SKIP() << "needs descriptors the sanitizer runtime takes for itself";
#endif
  listen(TcpListenerOptions{.exhausted_pause = 100ms});
  // The client's socket first: then accept() is the one that finds no descriptor left.
  tcp::socket client(client_io_);
  client.open(asio::ip::tcp::v4());
  timeval timeout{10, 0};
  ::setsockopt(client.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  DescriptorsExhausted exhausted;
  client.connect(endpoint_);  // completes in the kernel's backlog, no descriptor needed
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (listener_->accept_failures() == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
  }
  ASSERT_GT(listener_->accept_failures(), 0u);
  // A measuring window, not synchronisation: a loop that retried at once would fail thousands
  // of times in it; one that pauses 100 ms fails a handful of times.
  std::this_thread::sleep_for(500ms);
  const auto failures = listener_->accept_failures();
  EXPECT_LE(failures, 10u);
  exhausted.restore();
  // The connection waited in the backlog and is served once descriptors are free again.
  EXPECT_TRUE(echoes(client, 'r'));
  EXPECT_EQ(tally_.get(tally_.started), 1);
}

}  // namespace
}  // namespace hdstream
