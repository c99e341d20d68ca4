#include "transport/message_io.hpp"

#include <array>

#include "protocol/checksum.hpp"

namespace hdstream {

awaitable<HeaderRead> read_header(tcp::socket& socket) {
  std::array<std::byte, kHeaderBytes> raw;
  HeaderRead result;
  co_await asio::async_read(socket, asio::buffer(raw), nothrow(result.error));
  if (result.error) co_return result;
  result.detail = decode_header(raw, result.header);
  if (result.detail != HeaderError::none) {
    result.error = boost::system::errc::make_error_code(boost::system::errc::protocol_error);
  }
  co_return result;
}

awaitable<BodyRead> read_control_body(tcp::socket& socket, const MessageHeader& header,
                                      std::vector<std::byte>& body) {
  BodyRead result;
  body.resize(std::min<std::size_t>(header.payload_bytes, kMaxControlBytes));
  co_await asio::async_read(socket, asio::buffer(body), nothrow(result.error));
  result.checksum_ok = !result.error && payload_checksum(body) == header.payload_xxh3;
  co_return result;
}

awaitable<boost::system::error_code> discard(tcp::socket& socket, std::size_t bytes,
                                             std::vector<std::byte>& scratch) {
  if (scratch.size() < 64 * 1024) scratch.resize(64 * 1024);
  while (bytes > 0) {
    const std::size_t piece = std::min(bytes, scratch.size());
    error_code ec;
    const std::size_t n =
        co_await asio::async_read(socket, asio::buffer(scratch.data(), piece), nothrow(ec));
    if (ec) co_return ec;
    bytes -= n;
  }
  co_return boost::system::error_code{};
}

}  // namespace hdstream
