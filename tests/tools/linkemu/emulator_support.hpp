// What the emulator tests share: sockets created inside a site's namespace, numbered UDP
// datagrams pushed through the emulator no faster than it forwards them, and waits on
// observable conditions with a deadline.
//   const int rx = socket_in(wan.netns("b"), SOCK_DGRAM);
//   auto run = udp_exchange(wan, 20000, {.to_address = "198.19.1.1", .path = Path::b});
#pragma once

#include <netinet/in.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tools/linkemu/emulator.hpp"

namespace hdstream::linkemu {

// A socket created inside a namespace belongs to it wherever it is used afterwards.
int socket_in(const std::string& netns, int type);

sockaddr_in address(const char* ip, std::uint16_t port);

// Polls `condition` until it holds or `timeout` passes. Between polls the thread sleeps a
// millisecond rather than spinning: on a 2-core machine a spinning test thread (each poll of
// Emulator::stats() reads /proc/net/dev) takes the core the forwarder threads need.
bool wait_until(const std::function<bool()>& condition, std::chrono::nanoseconds timeout);

// One direction's counters: `from` -> `to` on `path`. Throws if the emulator has no such one.
DirectionStats direction(const EmulatorStats& stats, const std::string& from, const std::string& to,
                         Path path = Path::a);

// Datagrams a test lets into the emulator before it waits for some to come out. An unpaced
// blast (20,000 datagrams in ~0.2 s) is not what any link carries: it overflows the TUN queue
// and turns every scheduling hiccup of the forwarder (hypervisor steal, no real-time priority)
// into thousands of late packets. A window paces the sender at the emulator's own speed.
inline constexpr std::uint64_t kUdpWindow = 64;

// Packets that have met their fate: delivered, or dropped for any reason.
std::uint64_t settled(const DirectionStats& d);

// Reads every datagram waiting on `rx` (the first 4 bytes are its number), waiting up to
// `wait` for the first one.
void receive_numbered(int rx, std::vector<std::uint32_t>& received, std::chrono::milliseconds wait);

struct UdpFlow {
  std::string from_site = "a", to_site = "b";
  std::string to_address = "198.18.1.1";
  std::uint16_t port = 7003;
  Path path = Path::a;  // the path the datagrams take: its counters say what is in flight
};

struct UdpRun {
  std::vector<std::uint32_t> received;  // sequence numbers in arrival order
  DirectionStats before, after;         // the flow's direction's counters around the run
};

// Sends `count` numbered datagrams along `flow`, never more than kUdpWindow of them inside the
// emulator at once, reads until the emulator has delivered all it forwarded (or a deadline),
// and returns what arrived. The direction's counters may have counted earlier traffic: the run
// looks only at what they gained.
UdpRun udp_exchange(Emulator& wan, std::uint32_t count, const UdpFlow& flow = {});

}  // namespace hdstream::linkemu
