// Why the link-emulator tests cannot run on this machine, if they cannot: they create network
// namespaces (root) joined through TUN devices (/dev/net/tun).
//   if (auto why = test::namespaces_unavailable()) GTEST_SKIP() << *why;
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <optional>
#include <string>

namespace hdstream::test {

inline std::optional<std::string> namespaces_unavailable() {
  if (geteuid() != 0) return "needs root for network namespaces";
  const int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
  if (fd < 0) return "/dev/net/tun is not usable";
  close(fd);
  return std::nullopt;
}

}  // namespace hdstream::test
