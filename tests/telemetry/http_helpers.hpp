// Blocking HTTP-over-loopback helpers for the telemetry tests (raw bytes, so tests can also
// send what no client library would).
//   std::string reply = exchange(port, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
#pragma once

#include <sys/socket.h>
#include <sys/time.h>

#include <chrono>
#include <string>

#include "common/asio.hpp"

namespace hdstream::testing {

struct RawConnection {
  asio::io_context io;
  tcp::socket socket{io};

  explicit RawConnection(std::uint16_t port,
                         std::chrono::milliseconds read_timeout = std::chrono::milliseconds(5000)) {
    socket.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
    timeval tv{};
    tv.tv_sec = static_cast<time_t>(read_timeout.count() / 1000);
    tv.tv_usec = static_cast<suseconds_t>((read_timeout.count() % 1000) * 1000);
    ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  }

  bool send(const std::string& bytes) {
    error_code ec;
    asio::write(socket, asio::buffer(bytes), ec);
    return !ec;
  }

  // Reads until the server closes (or the read timeout passes). `closed` tells which.
  std::string read_all(bool* closed = nullptr) {
    std::string out;
    char buffer[16384];
    for (;;) {
      error_code ec;
      const std::size_t n = socket.read_some(asio::buffer(buffer), ec);
      out.append(buffer, n);
      if (ec) {
        if (closed) *closed = ec == asio::error::eof || ec == asio::error::connection_reset;
        return out;
      }
    }
  }
};

// One request with "Connection: close"; returns the raw response.
inline std::string http_exchange(std::uint16_t port, const std::string& target) {
  RawConnection connection(port);
  connection.send("GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  return connection.read_all();
}

inline std::string body_of(const std::string& response) {
  const auto split = response.find("\r\n\r\n");
  return split == std::string::npos ? std::string() : response.substr(split + 4);
}

}  // namespace hdstream::testing
