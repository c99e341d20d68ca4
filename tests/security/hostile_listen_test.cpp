// Hostile connections on a running receiver's listen port: garbage is closed at once with the
// decode error logged; a half-open (silent) connection and a slowloris (a HELLO trickled a byte
// at a time, never complete) are both cut at the handshake deadline (5 s from accept, not
// from the last byte); 300 silent connections at once from 10 addresses are all accepted and
// cost bounded memory and a few log lines; and the running feed never notices.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <thread>

#include "protocol/handshake.hpp"
#include "tests/security/process_helpers.hpp"

namespace hdstream {
namespace {

using namespace std::chrono_literals;

// From 127.0.0.1 + `from` (every 127/8 address is this host's loopback).
int connect_to(int port, std::uint32_t from = 0) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in local{};
  local.sin_family = AF_INET;
  local.sin_addr.s_addr = htonl(INADDR_LOOPBACK + from);
  if (from != 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof local) != 0) {
    ::close(fd);
    return -1;
  }
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

// Descriptors a process holds open: each accepted connection is one.
long open_fds(int pid) {
  std::error_code ignored;
  const std::filesystem::directory_iterator fds("/proc/" + std::to_string(pid) + "/fd", ignored);
  return std::distance(std::filesystem::begin(fds), std::filesystem::end(fds));
}

// How the receiver names the peer behind our end of `fd` in its log ("127.0.0.1:41234").
std::string peer_name_of(int fd) {
  sockaddr_in address{};
  socklen_t length = sizeof address;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  return "127.0.0.1:" + std::to_string(ntohs(address.sin_port));
}

// The receiver's handshake deadline (ReceiverOptions::handshake_timeout, not set by the CLI),
// as it logs it.
constexpr auto kHandshakeTimeout = 5s;
constexpr auto kHandshakeTimeoutText = "no handshake within 5 s";
constexpr auto kTrickleInterval = 200ms;

TEST(HostileListen, GarbageHalfOpenAndSlowlorisAreClosedAndTheFeedContinues) {
  auto dir = test::scratch_dir("hostile-listen");
  const int port = test::free_port();
  const std::string address = "127.0.0.1:" + std::to_string(port);
  test::Process recv({HDSTREAM_BINARY, "recv", "--listen", address, "--streams", "1", "--stats",
                      "json", "--interval", "200ms"},
                     dir, "recv");
  test::Process send({HDSTREAM_BINARY, "send", "--dest", address, "--rate", "20M", "--stats",
                      "json", "--interval", "200ms"},
                     dir, "send");
  ASSERT_TRUE(test::frames_grow([&] { return recv.out(); }, 0, 10)) << recv.err();

  // Garbage: closed at once, with the decode error logged.
  const int garbage = connect_to(port);
  ASSERT_GE(garbage, 0);
  const std::string garbage_peer = peer_name_of(garbage);
  const std::string junk = "GET / HTTP/1.1\r\nHost: projector\r\n\r\n" + std::string(100, 'x');
  ASSERT_GT(::send(garbage, junk.data(), junk.size(), MSG_NOSIGNAL), 0);
  EXPECT_TRUE(closed_by_peer(garbage, 2s));
  ::close(garbage);

  // Half-open (never speaks) and slowloris (a real HELLO, one byte every 200 ms: its 48-byte
  // header alone would take 9.6 s), opened together and watched together. A deadline counted
  // from the last byte would let the slowloris live as long as it trickles.
  const auto silent_connecting = std::chrono::steady_clock::now();
  const int silent = connect_to(port);
  const auto slow_connecting = std::chrono::steady_clock::now();
  const int slow = connect_to(port);
  ASSERT_GE(silent, 0);
  ASSERT_GE(slow, 0);
  const std::string silent_peer = peer_name_of(silent);
  const std::string slow_peer = peer_name_of(slow);
  const auto hello = encode_hello(0, Hello{});
  std::size_t trickled = 0;
  std::optional<std::chrono::steady_clock::duration> silent_lived, slow_lived;
  auto next_byte = slow_connecting;
  const auto give_up = slow_connecting + 3 * kHandshakeTimeout;
  while ((!silent_lived || !slow_lived) && std::chrono::steady_clock::now() < give_up) {
    const auto now = std::chrono::steady_clock::now();
    if (!slow_lived && now >= next_byte) {
      if (::send(slow, &hello[trickled % hello.size()], 1, MSG_NOSIGNAL) == 1) ++trickled;
      next_byte += kTrickleInterval;
    }
    pollfd watched[2] = {{silent, POLLIN, 0}, {slow, POLLIN, 0}};
    ::poll(watched, 2, 10);
    char byte;
    if (!silent_lived && watched[0].revents && ::recv(silent, &byte, 1, MSG_DONTWAIT) <= 0) {
      silent_lived = std::chrono::steady_clock::now() - silent_connecting;
    }
    if (!slow_lived && watched[1].revents && ::recv(slow, &byte, 1, MSG_DONTWAIT) <= 0) {
      slow_lived = std::chrono::steady_clock::now() - slow_connecting;
    }
  }
  ::close(silent);
  ::close(slow);
  ASSERT_TRUE(silent_lived) << "a silent connection outlived 3 handshake timeouts";
  ASSERT_TRUE(slow_lived) << "a trickling connection outlived 3 handshake timeouts (" << trickled
                          << " bytes sent)";
  std::printf("[ hostile ] silent cut after %.3f s, slowloris after %.3f s (%zu bytes trickled)\n",
              std::chrono::duration<double>(*silent_lived).count(),
              std::chrono::duration<double>(*slow_lived).count(), trickled);
  // Not cut before the deadline (it starts at accept, after our connect began)...
  EXPECT_GE(*silent_lived, kHandshakeTimeout);
  EXPECT_GE(*slow_lived, kHandshakeTimeout);
  // ...and cut at it: the trickle bought no time over the silent connection beyond one trickle
  // step (how late this machine serves the deadline is measured by the silent one).
  EXPECT_LE(*slow_lived, *silent_lived + kTrickleInterval);
  // It really trickled through the whole deadline, never completing the header.
  EXPECT_GE(trickled, kHandshakeTimeout / kTrickleInterval - 1);
  EXPECT_LT(trickled, kHeaderBytes);

  // Many silent connections at once: pre-auth memory per connection is bounded (48 + 4096
  // bytes plus socket state), so 300 of them cost little once the receiver has accepted all.
  // From 10 addresses, 30 each: one address may hold 32 without a handshake (a stream's worth of
  // sub-connections on two legs; IdleConnections tests the limits).
  constexpr std::size_t kCrowd = 300;
  constexpr std::size_t kCrowdAddresses = 10;
  const long rss_before = rss_kib(recv.pid());
  const long fds_before = open_fds(recv.pid());
  std::vector<int> crowd;
  for (std::size_t i = 0; i < kCrowd; ++i) {
    const int fd = connect_to(port, static_cast<std::uint32_t>(1 + i % kCrowdAddresses));
    if (fd >= 0) crowd.push_back(fd);
  }
  ASSERT_EQ(crowd.size(), kCrowd);
  long most_held = 0;
  ASSERT_TRUE(test::eventually([&] {
    most_held = std::max(most_held, open_fds(recv.pid()) - fds_before);
    return most_held >= static_cast<long>(kCrowd);
  })) << "the receiver held at most "
      << most_held << " of " << kCrowd;
  const long rss_during = rss_kib(recv.pid());
  EXPECT_LT(rss_during - rss_before, 32 * 1024) << rss_before << " -> " << rss_during << " KiB";
  std::vector<std::string> crowd_peers;
  for (int fd : crowd) {
    crowd_peers.push_back(peer_name_of(fd));
    EXPECT_TRUE(closed_by_peer(fd, kHandshakeTimeout + 3s));
    ::close(fd);
  }

  // The feed never noticed.
  ASSERT_TRUE(test::frames_grow([&] { return recv.out(); }, 0, 10)) << recv.err();
  send.signal(SIGTERM);
  EXPECT_EQ(send.wait(20s), 130) << send.err();
  EXPECT_EQ(recv.wait(20s), 0) << recv.err();  // its one stream ended cleanly
  // Each connection was closed for its own reason, named in the log.
  const std::string log = recv.err();
  EXPECT_TRUE(test::contains(log, "closing " + garbage_peer + ": bad magic (not an hdstream peer)"))
      << log;
  EXPECT_TRUE(test::contains(log, "closing " + silent_peer + ": " + kHandshakeTimeoutText)) << log;
  EXPECT_TRUE(test::contains(log, "closing " + slow_peer + ": " + kHandshakeTimeoutText)) << log;
  // The crowd's closures are held back once a transport's strangers have had their 10 lines in
  // 10 s (the three above among them): a few lines, perhaps none, for 300 connections.
  std::size_t crowd_logged = 0;
  for (const auto& peer : crowd_peers) {
    crowd_logged += test::contains(log, "closing " + peer + ": " + kHandshakeTimeoutText) ? 1 : 0;
  }
  EXPECT_LE(crowd_logged, 10u);
  auto sent = test::find_line(send.out(), "summary");
  auto received = test::find_line(recv.out(), "summary");
  ASSERT_TRUE(sent && received);
  EXPECT_EQ((*received)["frames"], (*sent)["frames"]);
  EXPECT_EQ((*received)["drops"], 0);
  EXPECT_EQ((*received)["checksum_errors"], 0);
}

}  // namespace
}  // namespace hdstream
