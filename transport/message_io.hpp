// Reading and writing whole hdstream messages on a stream socket, as coroutines. An error from
// any of them ends the socket's use: a second read of a reset connection can wait forever
// (Asio's epoll reactor then waits for a readiness edge that never comes).
//   auto [ec, header] = co_await read_header(socket);
//   std::vector<std::byte> body;  ec = co_await read_control_body(socket, header, body);
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <system_error>
#include <vector>

#include "common/asio.hpp"
#include "protocol/wire.hpp"

namespace hdstream {

// Reads and validates one 48-byte header. A header that fails validation yields
// `protocol_error` and the decode error in `detail`.
struct HeaderRead {
  boost::system::error_code error;
  HeaderError detail = HeaderError::none;
  MessageHeader header;
};
awaitable<HeaderRead> read_header(tcp::socket& socket);

// Reads a control message's body (at most kMaxControlBytes) and checks its XXH3-64.
// Returns false in `ok` when the checksum does not match.
struct BodyRead {
  boost::system::error_code error;
  bool checksum_ok = false;
};
awaitable<BodyRead> read_control_body(tcp::socket& socket, const MessageHeader& header,
                                      std::vector<std::byte>& body);

// Reads a stream of messages with one syscall per chunk where the data allows: a chunk's payload
// is read with recvmsg into two iovecs, its destination and the next message's header, so the
// header that follows a payload on the wire usually arrives with it. What was read of the next
// header stays staged here for `read_header`. One reader per socket, used by one coroutine.
//   MessageReader reader;
//   auto read = co_await reader.read_header(socket);
//   ec = co_await reader.read_payload(socket, slot);   // returns once `slot` is full
class MessageReader {
 public:
  awaitable<HeaderRead> read_header(tcp::socket& socket);
  awaitable<boost::system::error_code> read_payload(tcp::socket& socket,
                                                    std::span<std::byte> destination);
  // Bytes of the next header already read (0..48).
  std::size_t staged_bytes() const { return staged_bytes_; }

 private:
  std::array<std::byte, kHeaderBytes> staged_{};
  std::size_t staged_bytes_ = 0;
};

// Reads and throws away `bytes` bytes (the payload of a refused chunk) through `scratch`.
awaitable<boost::system::error_code> discard(tcp::socket& socket, std::size_t bytes,
                                             std::vector<std::byte>& scratch);

}  // namespace hdstream
