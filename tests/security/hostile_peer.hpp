// A stranger that speaks hdstream's protocol to a receiver without a key: HELLOs with hostile
// values and chunk headers whose one-byte payloads announce large frames. Over raw TCP sockets
// (tcp, mtcp) or a libsrt caller (srt). For the memory-bound tests; also measures a process's RSS.
//   test::HostilePeer peer(TransportKind::tcp, port, stream);
//   auto ack = peer.hello(hello);                    // HELLO_ACK, or nullopt
//   peer.send(test::frame_tail(stream, seq, hello.chunk_bytes, frame_bytes));
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "protocol/checksum.hpp"
#include "protocol/handshake.hpp"
#include "protocol/wire.hpp"
#include "transport/srt/srt_socket.hpp"

namespace hdstream::test {

// VmRSS of a process in KiB; -1 when it cannot be read.
inline long rss_kib(int pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

// One CHUNK message: the last chunk of frame `seq` of `frame_bytes`, cut in chunks of
// `chunk_bytes` (so it is consistent with the HELLO), choosing frame_bytes so that it carries
// one byte. The cheapest way a peer can make a receiver allocate a whole frame.
inline std::vector<std::byte> frame_tail(std::uint16_t stream, std::uint64_t seq,
                                         std::uint32_t chunk_bytes, std::uint32_t max_frame_bytes) {
  const std::uint32_t full_chunks = (max_frame_bytes - 1) / chunk_bytes;
  MessageHeader header;
  header.type = MessageType::chunk;
  header.stream_id = stream;
  header.frame_seq = seq;
  header.frame_bytes = full_chunks * chunk_bytes + 1;
  header.chunk_count = static_cast<std::uint16_t>(full_chunks + 1);
  header.chunk_index = static_cast<std::uint16_t>(full_chunks);
  header.payload_offset = full_chunks * chunk_bytes;
  header.payload_bytes = 1;
  header.timestamp_ns = 1'000'000'000;
  const std::byte payload[1] = {std::byte{0x5a}};
  header.payload_xxh3 = payload_checksum(payload);
  std::vector<std::byte> message(kHeaderBytes + 1);
  encode_header(header, std::span<std::byte, kHeaderBytes>(message.data(), kHeaderBytes));
  message[kHeaderBytes] = payload[0];
  return message;
}

// The first chunk of a frame of `frame_bytes` claiming to be its only chunk and to carry one
// byte: what a peer sends to have a receiver allocate frames before it checks their chunks.
inline std::vector<std::byte> one_byte_frame_start(std::uint16_t stream, std::uint64_t seq,
                                                   std::uint32_t frame_bytes) {
  auto message = frame_tail(stream, seq, frame_bytes, frame_bytes);
  MessageHeader header;
  decode_header(message, header);
  header.frame_bytes = frame_bytes;
  header.chunk_count = 1;
  header.chunk_index = 0;
  header.payload_offset = 0;
  encode_header(header, std::span<std::byte, kHeaderBytes>(message.data(), kHeaderBytes));
  return message;
}

class HostilePeer {
 public:
  // `announce_probe` (srt): the caller's stream id announces a capacity probe, as `check`'s do.
  HostilePeer(TransportKind transport, int port, std::uint16_t stream,
              bool announce_probe = false) {
    if (transport == TransportKind::srt) {
      ensure_srt_started();
      try {
        // Announcing nothing: the listener's own sizing.
        srt_ = SrtSocket::caller(announce_probe ? SrtPlan{.rate_bps = 10'000'000, .probe = true}
                                                : SrtPlan{});
        srt_->connect(Endpoint{"127.0.0.1", static_cast<std::uint16_t>(port + stream)});
      } catch (const SrtError&) {
        srt_.reset();
      }
      return;
    }
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  HostilePeer(const HostilePeer&) = delete;
  HostilePeer& operator=(const HostilePeer&) = delete;
  ~HostilePeer() {
    if (fd_ >= 0) ::close(fd_);
  }

  bool connected() const { return fd_ >= 0 || srt_.has_value(); }

  bool send(const std::vector<std::byte>& message) {
    if (srt_) return srt_->send(message) == SrtIo::ok;
    std::size_t sent = 0;
    while (sent < message.size()) {
      const auto n = ::send(fd_, message.data() + sent, message.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return false;
      sent += static_cast<std::size_t>(n);
    }
    return true;
  }

  // Sends the HELLO and waits (up to 5 s) for the HELLO_ACK.
  std::optional<HelloAck> hello(std::uint16_t stream, const Hello& hello) {
    if (!send(encode_hello(stream, hello))) return std::nullopt;
    std::vector<std::byte> message;
    if (!receive(message, std::chrono::seconds(5))) return std::nullopt;
    MessageHeader header;
    if (decode_header(message, header) != HeaderError::none ||
        header.type != MessageType::hello_ack) {
      return std::nullopt;
    }
    return decode_hello_ack(std::span<const std::byte>(message).subspan(kHeaderBytes));
  }

  // True once the receiver has closed the session (within `timeout`); messages it sends
  // meanwhile (ACK, FEEDBACK) are read and ignored.
  bool closed_by_receiver(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    std::vector<std::byte> message;
    while (std::chrono::steady_clock::now() < deadline) {
      if (srt_) {
        std::array<std::byte, 2048> buffer;
        std::size_t received = 0;
        if (srt_->receive(buffer, received) == SrtIo::closed) return true;
        continue;
      }
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 50) > 0) {
        std::byte buffer[4096];
        if (::recv(fd_, buffer, sizeof buffer, MSG_DONTWAIT) <= 0) return true;
      }
    }
    return false;
  }

 private:
  // One whole message (header + body) within `timeout`.
  bool receive(std::vector<std::byte>& message, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    if (srt_) {
      std::array<std::byte, 2048> buffer;
      std::size_t received = 0;
      while (std::chrono::steady_clock::now() < deadline) {
        const SrtIo io = srt_->receive(buffer, received);
        if (io == SrtIo::closed) return false;
        if (io == SrtIo::ok) {
          message.assign(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(received));
          return true;
        }
      }
      return false;
    }
    message.clear();
    std::size_t want = kHeaderBytes;
    while (message.size() < want && std::chrono::steady_clock::now() < deadline) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      std::byte buffer[4096];
      const auto n = ::recv(fd_, buffer, std::min(sizeof buffer, want - message.size()), 0);
      if (n <= 0) return false;
      message.insert(message.end(), buffer, buffer + n);
      MessageHeader header;
      if (message.size() == kHeaderBytes) {
        if (decode_header(message, header) != HeaderError::none) return false;
        want = kHeaderBytes + header.payload_bytes;
      }
    }
    return message.size() == want;
  }

  int fd_ = -1;
  std::optional<SrtSocket> srt_;
};

}  // namespace hdstream::test
