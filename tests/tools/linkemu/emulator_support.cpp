#include "tests/tools/linkemu/emulator_support.hpp"

#include <arpa/inet.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "tools/linkemu/netns.hpp"

namespace hdstream::linkemu {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

int socket_in(const std::string& netns, int type) {
  int fd = -1;
  in_netns(netns, [&] { fd = socket(AF_INET, type | SOCK_CLOEXEC, 0); });
  if (fd < 0) throw std::runtime_error("socket failed");
  return fd;
}

sockaddr_in address(const char* ip, std::uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  inet_pton(AF_INET, ip, &a.sin_addr);
  return a;
}

bool wait_until(const std::function<bool()>& condition, std::chrono::nanoseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (!condition()) {
    if (Clock::now() > deadline) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

DirectionStats direction(const EmulatorStats& stats, const std::string& from, const std::string& to,
                         Path path) {
  for (const auto& d : stats.directions) {
    if (d.from == from && d.to == to && d.path == path) return d;
  }
  throw std::runtime_error(
      fmt::format("no direction {} -> {} on path {}", from, to, to_string(path)));
}

std::uint64_t settled(const DirectionStats& d) {
  return d.packets_forwarded + d.emulated_loss_drops + d.queue_drops + d.overload_drops +
         d.outage_drops;
}

void receive_numbered(int rx, std::vector<std::uint32_t>& received,
                      std::chrono::milliseconds wait) {
  pollfd ready{rx, POLLIN, 0};
  if (poll(&ready, 1, static_cast<int>(wait.count())) <= 0) return;
  char buffer[256];
  while (recv(rx, buffer, sizeof buffer, MSG_DONTWAIT) >= 4) {
    std::uint32_t got = 0;
    std::memcpy(&got, buffer, sizeof got);
    received.push_back(got);
  }
}

UdpRun udp_exchange(Emulator& wan, std::uint32_t count, const UdpFlow& flow) {
  const int rx = socket_in(wan.netns(flow.to_site), SOCK_DGRAM);
  const int big = 8 << 20;
  setsockopt(rx, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof big);
  auto server = address(flow.to_address.c_str(), flow.port);
  if (bind(rx, reinterpret_cast<sockaddr*>(&server), sizeof server) != 0)
    throw std::runtime_error("bind");
  const int tx = socket_in(wan.netns(flow.from_site), SOCK_DGRAM);
  auto counters = [&] { return direction(wan.stats(), flow.from_site, flow.to_site, flow.path); };
  UdpRun run;
  run.before = counters();
  const std::uint64_t settled_before = settled(run.before);
  char buffer[256] = {};
  const auto deadline = Clock::now() + 30s;
  for (std::uint32_t seq = 0; seq < count; ++seq) {
    // Inside the emulator: sent, not yet delivered, dropped or lost. Counted from the
    // datagrams read first (cheap); the emulator's counters only when the window looks full.
    while (seq - run.received.size() >= kUdpWindow &&
           seq - (settled(counters()) - settled_before) >= kUdpWindow && Clock::now() < deadline) {
      receive_numbered(rx, run.received, 2ms);
    }
    std::memcpy(buffer, &seq, sizeof seq);
    sendto(tx, buffer, 200, 0, reinterpret_cast<sockaddr*>(&server), sizeof server);
    receive_numbered(rx, run.received, 0ms);
  }
  wait_until(
      [&] {
        receive_numbered(rx, run.received, 0ms);
        // Done when every datagram has a fate and every forwarded one has been read.
        const auto d = counters();
        return d.packets_in - run.before.packets_in == count &&
               settled(d) - settled_before == count &&
               run.received.size() >= d.packets_forwarded - run.before.packets_forwarded;
      },
      10s);
  run.after = counters();
  close(rx);
  close(tx);
  return run;
}

}  // namespace hdstream::linkemu
