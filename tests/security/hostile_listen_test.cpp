// Hostile connections on a running receiver's listen port: garbage, half-open (silent) and
// slowloris (a byte at a time) are closed with a log line within the handshake timeout (5 s),
// pre-authentication memory stays bounded, and the running feed never notices.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

#include "tests/security/process_helpers.hpp"

namespace hdstream {
namespace {

using namespace std::chrono_literals;

int connect_to(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// True once the peer has closed `fd` (read returns 0 or an error) within `timeout`.
bool closed_by_peer(int fd, std::chrono::milliseconds timeout) {
  pollfd p{fd, POLLIN, 0};
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (::poll(&p, 1, 50) > 0) {
      char byte;
      const auto n = ::recv(fd, &byte, 1, MSG_DONTWAIT);
      if (n <= 0) return true;
    }
  }
  return false;
}

long rss_kib(int pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

TEST(HostileListen, GarbageHalfOpenAndSlowlorisAreClosedAndTheFeedContinues) {
  auto dir = test::scratch_dir("hostile-listen");
  const int port = test::free_port();
  const std::string address = "127.0.0.1:" + std::to_string(port);
  test::Process recv({HDSTREAM_BINARY, "recv", "--listen", address, "--streams", "1",
                      "--stats", "json", "--interval", "200ms"},
                     dir, "recv");
  test::Process send({HDSTREAM_BINARY, "send", "--dest", address, "--rate", "20M",
                      "--stats", "json", "--interval", "200ms"},
                     dir, "send");
  ASSERT_TRUE(test::frames_grow([&] { return recv.out(); }, 0, 10)) << recv.err();

  // Garbage: closed at once, with the decode error logged.
  const int garbage = connect_to(port);
  ASSERT_GE(garbage, 0);
  const std::string junk = "GET / HTTP/1.1\r\nHost: projector\r\n\r\n" + std::string(100, 'x');
  ASSERT_GT(::send(garbage, junk.data(), junk.size(), MSG_NOSIGNAL), 0);
  EXPECT_TRUE(closed_by_peer(garbage, 2s));
  ::close(garbage);

  // Half-open: a connection that never speaks.
  const int silent = connect_to(port);
  // Slowloris: a plausible header, one byte every 300 ms (a HELLO would take ~30 s).
  const int slow = connect_to(port);
  ASSERT_GE(silent, 0);
  ASSERT_GE(slow, 0);
  const auto start = std::chrono::steady_clock::now();
  const char magic[] = {'H', 'D', 'S', 'T', 1, 2};
  bool slow_closed = false;
  for (char byte : magic) {
    if (::send(slow, &byte, 1, MSG_NOSIGNAL) != 1) {
      slow_closed = true;
      break;
    }
    std::this_thread::sleep_for(300ms);
  }
  EXPECT_TRUE(closed_by_peer(silent, 8s));
  EXPECT_TRUE(slow_closed || closed_by_peer(slow, 8s));
  EXPECT_LT(std::chrono::steady_clock::now() - start, 8s);
  ::close(silent);
  ::close(slow);

  // Many silent connections at once: pre-auth memory per connection is bounded (48 + 4096
  // bytes plus socket state), so 300 of them cost little.
  const long rss_before = rss_kib(recv.pid());
  std::vector<int> crowd;
  for (int i = 0; i < 300; ++i) {
    const int fd = connect_to(port);
    if (fd >= 0) crowd.push_back(fd);
  }
  std::this_thread::sleep_for(1s);
  const long rss_during = rss_kib(recv.pid());
  EXPECT_LT(rss_during - rss_before, 32 * 1024) << rss_before << " -> " << rss_during << " KiB";
  for (int fd : crowd) {
    EXPECT_TRUE(closed_by_peer(fd, 8s));
    ::close(fd);
  }

  // The feed never noticed.
  ASSERT_TRUE(test::frames_grow([&] { return recv.out(); }, 0, 10)) << recv.err();
  send.signal(SIGTERM);
  EXPECT_EQ(send.wait(20s), 130) << send.err();
  EXPECT_EQ(recv.wait(20s), 0) << recv.err();  // its one stream ended cleanly
  const std::string log = recv.err();
  EXPECT_TRUE(test::contains(log, "bad magic") || test::contains(log, "closing 127.0.0.1")) << log;
  EXPECT_TRUE(test::contains(log, "no handshake within")) << log;
  auto sent = test::find_line(send.out(), "summary");
  auto received = test::find_line(recv.out(), "summary");
  ASSERT_TRUE(sent && received);
  EXPECT_EQ((*received)["frames"], (*sent)["frames"]);
  EXPECT_EQ((*received)["drops"], 0);
  EXPECT_EQ((*received)["checksum_errors"], 0);
}

}  // namespace
}  // namespace hdstream
