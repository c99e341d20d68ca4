// Two independent paths between the same sites (SMPTE ST 2022-7 style protection): each path
// has its own delay, can be cut or made lossy on its own, and the counters say which path did
// what. Real namespaces, TUN devices and sockets; skipped without root or TUN (but the API's
// argument checks run everywhere).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tests/support/namespaces.hpp"
#include "tests/support/process.hpp"
#include "tests/tools/linkemu/emulator_support.hpp"
#include "tools/linkemu/command.hpp"
#include "tools/linkemu/emulator.hpp"

namespace hdstream::linkemu {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using Milliseconds = std::chrono::duration<double, std::milli>;

constexpr const char* kSites = "\n[[site]]\nname = \"a\"\n[[site]]\nname = \"b\"\n";

Topology two_paths(const std::string& link, const std::string& path_b) {
  return parse_topology_text("[link]\n" + link + "\n[path_b]\n" + path_b + kSites, "two_paths");
}

class TwoPaths : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = test::namespaces_unavailable()) GTEST_SKIP() << *why;
  }
};

// Sends every datagram back to where it came from, from sockets bound inside a namespace, on
// its own thread until destroyed.
class UdpEcho {
 public:
  UdpEcho(const std::string& netns, const std::vector<std::string>& addresses, std::uint16_t port) {
    stop_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    for (const auto& ip : addresses) {
      const int fd = socket_in(netns, SOCK_DGRAM);
      fds_.push_back(fd);
      auto local = address(ip.c_str(), port);
      if (bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof local) != 0) {
        throw std::runtime_error(fmt::format("echo: cannot bind {}:{}", ip, port));
      }
    }
    thread_ = std::thread([this] { run(); });
  }
  ~UdpEcho() {
    const std::uint64_t one = 1;
    if (write(stop_fd_, &one, sizeof one) != sizeof one) std::perror("echo stop");
    thread_.join();
    for (const int fd : fds_) close(fd);
    close(stop_fd_);
  }
  UdpEcho(const UdpEcho&) = delete;
  UdpEcho& operator=(const UdpEcho&) = delete;

 private:
  void run() {
    std::vector<pollfd> polled{{stop_fd_, POLLIN, 0}};
    for (const int fd : fds_) polled.push_back({fd, POLLIN, 0});
    char buffer[2048];
    for (;;) {
      if (poll(polled.data(), polled.size(), -1) < 0) return;
      if (polled[0].revents & POLLIN) return;
      for (std::size_t i = 1; i < polled.size(); ++i) {
        if (!(polled[i].revents & POLLIN)) continue;
        sockaddr_in peer{};
        socklen_t peer_size = sizeof peer;
        const ssize_t n = recvfrom(polled[i].fd, buffer, sizeof buffer, MSG_DONTWAIT,
                                   reinterpret_cast<sockaddr*>(&peer), &peer_size);
        if (n > 0) {
          sendto(polled[i].fd, buffer, static_cast<std::size_t>(n), 0,
                 reinterpret_cast<sockaddr*>(&peer), peer_size);
        }
      }
    }
  }

  int stop_fd_ = -1;
  std::vector<int> fds_;
  std::thread thread_;
};

// The shortest of `count` round trips, one datagram at a time, from a socket in `netns` (bound
// to `local` unless empty) to an echo at `server`. Fails the test if a reply does not come.
Milliseconds best_round_trip(const std::string& netns, const std::string& local,
                             const sockaddr_in& server, int count) {
  const int fd = socket_in(netns, SOCK_DGRAM);
  if (!local.empty()) {
    auto bound = address(local.c_str(), 0);
    if (bind(fd, reinterpret_cast<sockaddr*>(&bound), sizeof bound) != 0) {
      close(fd);
      throw std::runtime_error("cannot bind " + local);
    }
  }
  connect(fd, reinterpret_cast<const sockaddr*>(&server), sizeof server);
  Milliseconds best{std::numeric_limits<double>::infinity()};
  for (std::uint32_t seq = 0; seq < static_cast<std::uint32_t>(count); ++seq) {
    const auto sent = Clock::now();
    send(fd, &seq, sizeof seq, 0);
    // Wait for this datagram's echo (an earlier one's, late, is skipped).
    std::uint32_t echoed = ~seq;
    while (echoed != seq) {
      pollfd ready{fd, POLLIN, 0};
      if (poll(&ready, 1, 5000) <= 0 || recv(fd, &echoed, sizeof echoed, 0) != sizeof echoed) {
        close(fd);
        ADD_FAILURE() << "no echo of datagram " << seq << " within 5 s";
        return best;
      }
    }
    best = std::min(best, Milliseconds(Clock::now() - sent));
  }
  close(fd);
  return best;
}

// What the same echo exchange costs without the emulator: over loopback inside one site. The
// sockets' wake-ups on both ends are in every round trip the tests measure through the link.
Milliseconds loopback_round_trip(const std::string& netns, int count) {
  UdpEcho echo(netns, {"127.0.0.1"}, 7100);
  return best_round_trip(netns, "", address("127.0.0.1", 7100), count);
}

constexpr int kPings = 20;

// A round trip on `path` takes at least its RTT (a packet is never due before its delay has
// passed), and at most that plus, per leg, the emulator's own "late" threshold, plus what the
// endpoints' wake-ups cost (measured over loopback).
void expect_round_trip(Milliseconds measured, const LinkProfile& path, Milliseconds loopback,
                       const std::string& what) {
  const Milliseconds configured = 2 * path.one_way_delay;
  const Milliseconds allowance = 2 * std::chrono::nanoseconds(kLateThresholdNs) + loopback;
  std::printf("[ rtt ] %s: %.3f ms (configured %.1f ms, allowance %.3f ms)\n", what.c_str(),
              measured.count(), configured.count(), allowance.count());
  EXPECT_GE(measured.count(), configured.count()) << what;
  EXPECT_LE(measured.count(), (configured + allowance).count()) << what;
}

TEST_F(TwoPaths, EachPathHasItsOwnRoundTripTime) {
  Emulator wan(two_paths("rtt = \"20ms\"", "rtt = \"35ms\""));
  wan.up();
  UdpEcho echo(wan.netns("b"), {"198.18.1.1", "198.19.1.1"}, 7101);
  const Milliseconds loopback = loopback_round_trip(wan.netns("a"), kPings);
  const auto on_a = best_round_trip(wan.netns("a"), "", address("198.18.1.1", 7101), kPings);
  const auto on_b = best_round_trip(wan.netns("a"), "", address("198.19.1.1", 7101), kPings);
  expect_round_trip(on_a, wan.topology().link, loopback, "path a");
  expect_round_trip(on_b, *wan.topology().path_b, loopback, "path b");
  RecordProperty("rtt_a_us", static_cast<int>(on_a.count() * 1000));
  RecordProperty("rtt_b_us", static_cast<int>(on_b.count() * 1000));
  // Each path carried its own pings, both ways, and nothing else.
  const auto stats = wan.stats();
  for (const Path path : {Path::a, Path::b}) {
    EXPECT_EQ(direction(stats, "a", "b", path).packets_forwarded, std::uint64_t{kPings});
    EXPECT_EQ(direction(stats, "b", "a", path).packets_forwarded, std::uint64_t{kPings});
  }
  EXPECT_EQ(stats.unroutable, 0u);
}

TEST_F(TwoPaths, APacketToOrFromAPathBAddressTakesPathBBothWays) {
  Emulator wan(two_paths("rtt = \"20ms\"", "rtt = \"35ms\""));
  wan.up();
  UdpEcho echo(wan.netns("b"), {"198.18.1.1", "198.19.1.1"}, 7102);
  const Milliseconds loopback = loopback_round_trip(wan.netns("a"), kPings);
  // Bound to path B's address, talking to path A's: path B (a policy route), and the echo's
  // reply to a 198.19 address comes back on B too.
  const auto from_b =
      best_round_trip(wan.netns("a"), "198.19.0.1", address("198.18.1.1", 7102), kPings);
  // Bound to path A's address, talking to path B's: path B by destination, both ways.
  const auto to_b =
      best_round_trip(wan.netns("a"), "198.18.0.1", address("198.19.1.1", 7102), kPings);
  expect_round_trip(from_b, *wan.topology().path_b, loopback, "from 198.19.0.1 to 198.18.1.1");
  expect_round_trip(to_b, *wan.topology().path_b, loopback, "from 198.18.0.1 to 198.19.1.1");
  const auto stats = wan.stats();
  EXPECT_EQ(direction(stats, "a", "b", Path::b).packets_forwarded, 2u * kPings);
  EXPECT_EQ(direction(stats, "b", "a", Path::b).packets_forwarded, 2u * kPings);
  EXPECT_EQ(direction(stats, "a", "b", Path::a).packets_in, 0u);
  EXPECT_EQ(direction(stats, "b", "a", Path::a).packets_in, 0u);
  EXPECT_EQ(stats.unroutable, 0u);
}

// A receiver in site b on one address, a sender in site a, numbered datagrams between them.
struct Feed {
  Feed(Emulator& wan, const char* to, std::uint16_t port)
      : rx(socket_in(wan.netns("b"), SOCK_DGRAM)),
        tx(socket_in(wan.netns("a"), SOCK_DGRAM)),
        server(address(to, port)) {
    if (bind(rx, reinterpret_cast<sockaddr*>(&server), sizeof server) != 0) {
      throw std::runtime_error(fmt::format("cannot bind {}:{}", to, port));
    }
  }
  ~Feed() {
    close(rx);
    close(tx);
  }
  Feed(const Feed&) = delete;
  Feed& operator=(const Feed&) = delete;

  void send_numbered(std::uint32_t count) {
    char buffer[200] = {};
    for (std::uint32_t i = 0; i < count; ++i, ++next) {
      std::memcpy(buffer, &next, sizeof next);
      sendto(tx, buffer, sizeof buffer, 0, reinterpret_cast<sockaddr*>(&server), sizeof server);
    }
  }
  std::size_t receive() {
    receive_numbered(rx, received, 0ms);
    return received.size();
  }

  int rx, tx;
  sockaddr_in server;
  std::uint32_t next = 0;
  std::vector<std::uint32_t> received;
};

TEST_F(TwoPaths, CuttingPathALeavesPathBDelivering) {
  Emulator wan(two_paths("rtt = \"20ms\"", "rtt = \"35ms\""));
  wan.up();
  Feed on_a(wan, "198.18.1.1", 7103), on_b(wan, "198.19.1.1", 7103);
  auto a_to_b = [&](Path path) { return direction(wan.stats(), "a", "b", path); };

  // Both paths carry the feed.
  on_a.send_numbered(50);
  on_b.send_numbered(50);
  ASSERT_TRUE(wait_until([&] { return on_a.receive() == 50 && on_b.receive() == 50; }, 5s));

  // Path A is cut; B goes on.
  wan.set_path_down(Path::a, true);
  EXPECT_TRUE(wan.path_down(Path::a));
  EXPECT_FALSE(wan.path_down(Path::b));
  EXPECT_FALSE(wan.link_down());  // not every path is down
  on_a.send_numbered(50);
  on_b.send_numbered(50);
  ASSERT_TRUE(wait_until([&] { return on_b.receive() == 100; }, 5s));
  ASSERT_TRUE(wait_until([&] { return a_to_b(Path::a).outage_drops == 50; }, 5s));
  EXPECT_EQ(on_a.receive(), 50u);  // every datagram sent on A while cut was dropped
  EXPECT_EQ(a_to_b(Path::a).packets_forwarded, 50u);
  EXPECT_EQ(a_to_b(Path::b).packets_forwarded, 100u);
  EXPECT_EQ(a_to_b(Path::b).outage_drops, 0u);
  const auto json = wan.stats_json();
  EXPECT_EQ(json["link_down"], false);
  EXPECT_EQ(json["paths"][0]["path"], "a");
  EXPECT_EQ(json["paths"][0]["down"], true);
  EXPECT_EQ(json["paths"][0]["outage_drops"], 50u);
  EXPECT_EQ(json["paths"][1]["path"], "b");
  EXPECT_EQ(json["paths"][1]["down"], false);
  EXPECT_EQ(json["paths"][1]["outage_drops"], 0u);
  for (const auto& d : json["directions"]) {
    const bool cut = d["path"] == "a" && d["from"] == "a";
    EXPECT_EQ(d["outage_drops"], cut ? 50u : 0u) << d.dump();
  }

  // Path A comes back and delivers what is sent after; nothing of the outage.
  wan.set_path_down(Path::a, false);
  on_a.send_numbered(50);
  ASSERT_TRUE(wait_until([&] { return on_a.receive() == 100; }, 5s));
  EXPECT_EQ(on_a.received[50], 100u);

  // The whole link: both paths down, then both up.
  wan.set_link_down(true);
  EXPECT_TRUE(wan.link_down());
  EXPECT_TRUE(wan.path_down(Path::a) && wan.path_down(Path::b));
  on_a.send_numbered(10);
  on_b.send_numbered(10);
  ASSERT_TRUE(wait_until(
      [&] { return a_to_b(Path::a).outage_drops == 60 && a_to_b(Path::b).outage_drops == 10; },
      5s));
  wan.set_link_down(false);
  EXPECT_FALSE(wan.path_down(Path::a) || wan.path_down(Path::b));
  on_b.send_numbered(10);
  ASSERT_TRUE(wait_until([&] { return on_b.receive() == 110; }, 5s));
  EXPECT_EQ(on_b.received[100], 110u);
}

TEST_F(TwoPaths, RunTimeLossOnPathBDropsThatFractionAndOnlyOnPathB) {
  Emulator wan(two_paths("rtt = \"2ms\"", "rtt = \"4ms\""));
  wan.up();
  const UdpFlow on_b{.to_address = "198.19.1.1", .port = 7104, .path = Path::b};
  const UdpFlow on_a{.to_address = "198.18.1.1", .port = 7105, .path = Path::a};
  constexpr double kLoss = 0.02;
  wan.set_path_loss(Path::b, kLoss);
  EXPECT_EQ(wan.path_loss(Path::b), kLoss);
  EXPECT_EQ(wan.path_loss(Path::a), 0.0);
  EXPECT_EQ(wan.stats_json()["paths"][1]["loss"], kLoss);

  const std::uint32_t n = 20000;
  const auto lossy = udp_exchange(wan, n, on_b);
  const auto lost = lossy.after.emulated_loss_drops - lossy.before.emulated_loss_drops;
  const auto forwarded = lossy.after.packets_forwarded - lossy.before.packets_forwarded;
  EXPECT_EQ(lossy.after.packets_in - lossy.before.packets_in, n);
  EXPECT_EQ(lossy.received.size(), forwarded);  // nothing lost but what was emulated
  EXPECT_EQ(forwarded + lost, n) << wan.stats_json().dump();
  // Binomial: n trials at kLoss; five standard deviations either side.
  const double mean = n * kLoss, sd = std::sqrt(mean * (1 - kLoss));
  std::printf("[ loss ] path b lost %llu of %u (%.3f %%; expected %.0f +- %.0f)\n",
              static_cast<unsigned long long>(lost), n, 100.0 * static_cast<double>(lost) / n, mean,
              5 * sd);
  RecordProperty("path_b_lost", static_cast<int>(lost));
  EXPECT_NEAR(static_cast<double>(lost), mean, 5 * sd);

  // Meanwhile path A loses nothing.
  const auto clean_a = udp_exchange(wan, 2000, on_a);
  EXPECT_EQ(clean_a.received.size(), 2000u);
  EXPECT_EQ(clean_a.after.emulated_loss_drops, 0u);

  // Back to no loss: path B delivers everything again.
  wan.set_path_loss(Path::b, 0);
  const auto clean_b = udp_exchange(wan, 5000, on_b);
  EXPECT_EQ(clean_b.received.size(), 5000u);
  EXPECT_EQ(clean_b.after.emulated_loss_drops, lossy.after.emulated_loss_drops);
  EXPECT_EQ(wan.stats_json()["paths"][1]["loss"], 0.0);
  for (const auto& d : wan.stats().directions) {
    EXPECT_EQ(d.overload_drops, 0u) << wan.stats_json().dump();
    EXPECT_EQ(d.kernel_drops, 0u) << wan.stats_json().dump();
    EXPECT_EQ(d.queue_drops, 0u) << wan.stats_json().dump();
  }
}

// No namespaces needed: the controls check their arguments before anything runs.
TEST(PathControls, RejectAPathTheTopologyLacksAndLossOutOfRange) {
  Emulator one_path(parse_topology_text(std::string("[link]\nloss = 0.01") + kSites, "one"));
  EXPECT_THROW(one_path.set_path_down(Path::b, true), std::invalid_argument);
  EXPECT_THROW(one_path.set_path_loss(Path::b, 0.1), std::invalid_argument);
  EXPECT_THROW(one_path.path_down(Path::invalid), std::invalid_argument);
  EXPECT_EQ(one_path.path_loss(Path::a), 0.01);  // the profile's until changed
  for (const double bad : {-0.1, 1.0, 2.0, std::nan("")}) {
    EXPECT_THROW(one_path.set_path_loss(Path::a, bad), std::invalid_argument) << bad;
  }
  EXPECT_EQ(one_path.path_loss(Path::a), 0.01);
  // Before up(): the state is kept and applies once the link runs.
  one_path.set_path_down(Path::a, true);
  EXPECT_TRUE(one_path.link_down());
  const auto stats = one_path.stats();
  ASSERT_EQ(stats.paths.size(), 1u);
  EXPECT_EQ(stats.paths[0].path, Path::a);
  EXPECT_TRUE(stats.paths[0].down);
  EXPECT_TRUE(stats.link_down);

  Emulator two(two_paths("", ""));
  two.set_path_down(Path::b, true);
  EXPECT_FALSE(two.link_down());
  two.set_link_down(true);
  EXPECT_TRUE(two.link_down());
  two.set_link_down(false);
  EXPECT_FALSE(two.path_down(Path::a) || two.path_down(Path::b));
}

// The command: --path-b-* flags bring path B up on lemu1, and SIGRTMIN+2 / +3 take it down and
// back, leaving path A alone.
TEST_F(TwoPaths, CommandLineFlagsAndSignalsControlPathB) {
  const auto dir = test::scratch_dir("linkemu-two-paths");
  const auto ready = dir / "ready", stats = dir / "stats.jsonl";
  std::filesystem::remove(ready);
  const std::string prefix = fmt::format("lt{}-", getpid());
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    execl(LINKEMU_BINARY, "linkemu", "up", "--rtt", "1ms", "--path-b-rtt", "3ms", "--prefix",
          prefix.c_str(), "--ready-file", ready.c_str(), "--stats-file", stats.c_str(),
          "--interval", "50ms", static_cast<char*>(nullptr));
    _exit(127);
  }
  ASSERT_TRUE(wait_until([&]() -> bool { return std::filesystem::exists(ready); }, 20s));
  const auto addresses = run_command({"ip", "-n", prefix + "b", "-4", "addr", "show", "lemu1"});
  EXPECT_NE(addresses.output.find("198.19.1.1/32"), std::string::npos) << addresses.output;
  // The last complete stats line's "paths".
  auto paths = [&]() -> nlohmann::json {
    std::ifstream in(stats);
    std::string line;
    nlohmann::json last;
    while (std::getline(in, line)) {
      auto j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_object()) last = j["paths"];
    }
    return last;
  };
  auto down = [&](int index) {
    const auto p = paths();
    return p.is_array() && p.size() == 2 && p[index]["down"] == true;
  };
  kill(child, SIGRTMIN + 2);
  EXPECT_TRUE(wait_until([&] { return down(1); }, 5s)) << paths().dump();
  EXPECT_FALSE(down(0));
  kill(child, SIGRTMIN + 3);
  EXPECT_TRUE(wait_until([&] { return !down(1); }, 5s)) << paths().dump();
  kill(child, SIGTERM);
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace hdstream::linkemu
