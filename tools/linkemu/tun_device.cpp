#include "tools/linkemu/tun_device.hpp"

#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "tools/linkemu/netns.hpp"

namespace hdstream::linkemu {

TunDevice::TunDevice(const std::string& netns, const std::string& interface_name)
    : name_(interface_name) {
  if (interface_name.size() >= IFNAMSIZ) {
    throw std::runtime_error(fmt::format("interface name '{}' is too long", interface_name));
  }
  in_netns(netns, [&] {
    fd_ = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd_ < 0) {
      throw std::runtime_error(fmt::format("cannot open /dev/net/tun: {}", std::strerror(errno)));
    }
    ifreq request{};
    request.ifr_flags = IFF_TUN | IFF_NO_PI;
    std::memcpy(request.ifr_name, interface_name.c_str(), interface_name.size());
    if (ioctl(fd_, TUNSETIFF, &request) != 0) {
      const int error = errno;
      close(fd_);
      fd_ = -1;
      throw std::runtime_error(fmt::format("cannot create TUN device {} in {}: {}", interface_name,
                                           netns, std::strerror(error)));
    }
    // A /proc/net file opened here keeps reporting this namespace's devices.
    proc_net_dev_fd_ = open("/proc/thread-self/net/dev", O_RDONLY | O_CLOEXEC);
  });
}

TunDevice::~TunDevice() {
  if (fd_ >= 0) close(fd_);
  if (proc_net_dev_fd_ >= 0) close(proc_net_dev_fd_);
}

TunKernelStats TunDevice::kernel_stats() const {
  TunKernelStats stats;
  if (proc_net_dev_fd_ < 0) return stats;
  std::string text;
  char buffer[4096];
  off_t offset = 0;
  for (;;) {
    const ssize_t n = pread(proc_net_dev_fd_, buffer, sizeof buffer, offset);
    if (n <= 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
    offset += n;
  }
  // "  lemu0: rx_bytes rx_packets rx_errs rx_drop ... (8 rx fields) tx_bytes tx_packets tx_errs
  // tx_drop ..."
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string device = line.substr(0, colon);
    device.erase(0, device.find_first_not_of(' '));
    if (device != name_) continue;
    std::istringstream fields(line.substr(colon + 1));
    std::uint64_t value[16] = {};
    for (auto& v : value) fields >> v;
    stats.rx_dropped = value[3];
    stats.tx_packets = value[9];
    stats.tx_dropped = value[11];
  }
  return stats;
}

}  // namespace hdstream::linkemu
