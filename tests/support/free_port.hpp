// Ports for a child process to listen on, chosen so that no other test can take them first.
//   const int base = test::free_port();  // base .. base + 7 free for TCP and UDP
#pragma once

#include <fstream>
#include <mutex>
#include <random>
#include <set>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace hdstream::test {

// Whether 127.0.0.1:`port` can be bound now, for TCP and for UDP (SRT's).
inline bool port_is_free(int port) {
  for (const int type : {SOCK_STREAM, SOCK_DGRAM}) {
    const int fd = ::socket(AF_INET, type, 0);
    if (fd < 0) return false;
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    const bool bound = ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
    ::close(fd);
    if (!bound) return false;
  }
  return true;
}

// The first of `count` (at most 16) consecutive loopback ports, TCP and UDP, that were free a
// moment ago (a receiver of N streams listens on base .. base + N - 1).
//
// They come from outside the kernel's ephemeral range: a port the kernel handed out for a
// moment (bind to port 0) is the kind it hands the next client socket of any test running
// beside, which then holds it when our child tries to listen (the likeliest cause of a CI
// failure).
// Below that range only tests choose ports, in random blocks of 16, each checked free and never
// handed out twice by one test process (its children may not have bound the last one yet).
inline int free_port(int count = 8) {
  static std::mutex mutex;
  static std::set<int> handed_out;
  std::lock_guard lock(mutex);
  int low = 32768, high = 60999;
  std::ifstream("/proc/sys/net/ipv4/ip_local_port_range") >> low >> high;
  const bool below = low - 10000 >= 4096;  // else above the range
  const int first = below ? 10000 : high + 1;
  const int blocks = ((below ? low : 65536) - first) / 16;
  if (count < 1 || count > 16 || blocks < 1) return -1;  // the child's "cannot listen" says so
  std::mt19937 pick(std::random_device{}());
  for (int attempt = 0; attempt < 200; ++attempt) {
    const int base = first + 16 * std::uniform_int_distribution<int>(0, blocks - 1)(pick);
    bool free = !handed_out.contains(base);
    for (int port = base; free && port < base + count; ++port) free = port_is_free(port);
    if (free) {
      handed_out.insert(base);
      return base;
    }
  }
  return -1;
}

}  // namespace hdstream::test
