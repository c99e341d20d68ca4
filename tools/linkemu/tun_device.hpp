// A layer-3 TUN device (IFF_TUN | IFF_NO_PI: one read or write is one IP packet), created inside
// a site's namespace, non-blocking, closed (and so removed) with the object.
//   TunDevice tun("hds4242-a", "lemu0");  ssize_t n = read(tun.fd(), buf, sizeof buf);
#pragma once

#include <cstdint>
#include <string>

namespace hdstream::linkemu {

// What the kernel counted on the device: tx_* is traffic the site sent into the link.
struct TunKernelStats {
  std::uint64_t tx_packets = 0;
  std::uint64_t tx_dropped = 0;  // packets the kernel dropped because the emulator read too late
  std::uint64_t rx_dropped = 0;
};

class TunDevice {
 public:
  // Throws std::runtime_error naming the namespace and the reason.
  TunDevice(const std::string& netns, const std::string& interface_name);
  ~TunDevice();
  TunDevice(const TunDevice&) = delete;
  TunDevice& operator=(const TunDevice&) = delete;

  int fd() const { return fd_; }
  const std::string& name() const { return name_; }
  // Reads the device's counters (via a /proc/net/dev handle opened inside the namespace).
  TunKernelStats kernel_stats() const;

 private:
  int fd_ = -1;
  int proc_net_dev_fd_ = -1;
  std::string name_;
};

}  // namespace hdstream::linkemu
