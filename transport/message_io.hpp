// Reading and writing whole hdstream messages on a stream socket, as coroutines.
//   auto [ec, header] = co_await read_header(socket);
//   std::vector<std::byte> body;  ec = co_await read_control_body(socket, header, body);
#pragma once

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

// Reads and throws away `bytes` bytes (the payload of a refused chunk) through `scratch`.
awaitable<boost::system::error_code> discard(tcp::socket& socket, std::size_t bytes,
                                             std::vector<std::byte>& scratch);

}  // namespace hdstream
