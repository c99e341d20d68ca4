// A TCP relay standing in for a network path in process tests: it forwards every connection
// made to its port to a target port on loopback, and can cut the path the way a failing link
// or middlebox does: every relayed connection aborted with RST on both sides, new ones refused,
// until restore().
//   test::TcpRelay relay(target_port);  // send to relay.port()
//   relay.cut();  ...  relay.restore();
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace hdstream::test {

class TcpRelay {
 public:
  explicit TcpRelay(std::uint16_t target_port) : target_port_(target_port) {
    listen_on(0);
    port_ = bound_port(listener_);
    accepter_ = std::thread([this] { accept_loop(); });
  }
  ~TcpRelay() {
    stopping_ = true;
    accepter_.join();
    abort_all();
    if (listener_ >= 0) ::close(listener_);
  }
  TcpRelay(const TcpRelay&) = delete;
  TcpRelay& operator=(const TcpRelay&) = delete;

  std::uint16_t port() const { return port_; }
  // Connections relayed so far (each accepted one that reached the target).
  int connections() const { return connections_.load(); }

  // Resets every relayed connection (RST both ways) and refuses new ones. Returns once every
  // relayed connection is gone.
  void cut() {
    {
      std::lock_guard lock(mutex_);
      refusing_ = true;
      ::close(listener_);  // connects now get ECONNREFUSED
      listener_ = -1;
    }
    abort_all();
  }
  // The path is back: the relay accepts on the same port again.
  void restore() {
    std::lock_guard lock(mutex_);
    listen_on(port_);
    refusing_ = false;
  }

 private:
  struct Pair {
    int client = -1;
    int server = -1;
    std::atomic<bool> abort{false};
    std::thread pump;
  };

  static std::uint16_t bound_port(int fd) {
    sockaddr_in address{};
    socklen_t length = sizeof address;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
    return ntohs(address.sin_port);
  }

  void listen_on(std::uint16_t port) {
    listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    const int one = 1;
    ::setsockopt(listener_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::listen(listener_, 64) != 0) {
      throw std::runtime_error("relay: cannot listen");
    }
  }

  int connect_target() const {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(target_port_);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
      ::close(fd);
      return -1;
    }
    return fd;
  }

  void accept_loop() {
    while (!stopping_) {
      int listener = -1;
      {
        std::lock_guard lock(mutex_);
        if (!refusing_) listener = listener_;
      }
      pollfd ready{listener, POLLIN, 0};
      // A short poll: the loop also notices stop and cut/restore (the listener changes).
      if (::poll(&ready, listener >= 0 ? 1 : 0, 20) <= 0) continue;
      std::lock_guard lock(mutex_);
      if (refusing_ || listener != listener_) continue;
      const int client = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
      if (client < 0) continue;
      const int server = connect_target();
      if (server < 0) {
        reset(client);
        continue;
      }
      ::fcntl(server, F_SETFL, ::fcntl(server, F_GETFL) | O_NONBLOCK);
      auto pair = std::make_unique<Pair>();
      pair->client = client;
      pair->server = server;
      Pair* raw = pair.get();
      pair->pump = std::thread([raw] { pump(*raw); });
      pairs_.push_back(std::move(pair));
      ++connections_;
    }
  }

  // Copies both ways until either side closes or the pair is aborted; then closes both, with
  // RST when aborted.
  static void pump(Pair& pair) {
    std::vector<char> buffer(1 << 16);
    pollfd fds[2] = {{pair.client, POLLIN, 0}, {pair.server, POLLIN, 0}};
    bool open = true;
    while (open && !pair.abort) {
      if (::poll(fds, 2, 20) <= 0) continue;
      for (int i = 0; i < 2 && open; ++i) {
        if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        const ssize_t n = ::read(fds[i].fd, buffer.data(), buffer.size());
        if (n < 0 && errno == EAGAIN) continue;
        if (n <= 0 || !write_all(pair, fds[1 - i].fd, buffer.data(), static_cast<std::size_t>(n))) {
          open = false;
        }
      }
    }
    if (pair.abort) {
      reset(pair.client);
      reset(pair.server);
    } else {
      ::close(pair.client);
      ::close(pair.server);
    }
  }

  // Both sockets are non-blocking: a peer that stops reading cannot keep an abort waiting.
  static bool write_all(const Pair& pair, int fd, const char* data, std::size_t bytes) {
    while (bytes > 0) {
      if (pair.abort) return false;
      const ssize_t n = ::write(fd, data, bytes);
      if (n < 0 && errno == EAGAIN) {
        pollfd room{fd, POLLOUT, 0};
        ::poll(&room, 1, 20);
        continue;
      }
      if (n <= 0) return false;
      data += n;
      bytes -= static_cast<std::size_t>(n);
    }
    return true;
  }

  // Closes with RST: SO_LINGER on with a zero timeout aborts the connection.
  static void reset(int fd) {
    const linger abort_now{1, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &abort_now, sizeof abort_now);
    ::close(fd);
  }

  void abort_all() {
    std::vector<std::unique_ptr<Pair>> pairs;
    {
      std::lock_guard lock(mutex_);
      pairs.swap(pairs_);
    }
    for (auto& pair : pairs) pair->abort = true;
    for (auto& pair : pairs) pair->pump.join();
  }

  std::uint16_t target_port_;
  std::uint16_t port_ = 0;
  std::mutex mutex_;
  int listener_ = -1;
  bool refusing_ = false;
  std::vector<std::unique_ptr<Pair>> pairs_;
  std::atomic<bool> stopping_{false};
  std::atomic<int> connections_{0};
  std::thread accepter_;
};

}  // namespace hdstream::test
