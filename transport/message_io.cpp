#include "transport/message_io.hpp"

#include <algorithm>
#include <array>
#include <cassert>

#include "protocol/checksum.hpp"

namespace hdstream {

awaitable<HeaderRead> read_header(tcp::socket& socket) {
  MessageReader reader;  // nothing staged: reads exactly one header
  co_return co_await reader.read_header(socket);
}

awaitable<HeaderRead> MessageReader::read_header(tcp::socket& socket) {
  HeaderRead result;
  if (staged_bytes_ < staged_.size()) {
    co_await asio::async_read(
        socket, asio::buffer(staged_.data() + staged_bytes_, staged_.size() - staged_bytes_),
        nothrow(result.error));
    if (result.error) co_return result;
  }
  staged_bytes_ = 0;
  result.detail = decode_header(staged_, result.header);
  if (result.detail != HeaderError::none) {
    result.error = boost::system::errc::make_error_code(boost::system::errc::protocol_error);
  }
  co_return result;
}

awaitable<boost::system::error_code> MessageReader::read_payload(tcp::socket& socket,
                                                                 std::span<std::byte> destination) {
  // Only read_header empties the stage, and a payload always follows its header.
  assert(staged_bytes_ == 0);
  std::size_t filled = 0;
  while (filled < destination.size()) {
    const std::array<asio::mutable_buffer, 2> iovecs{
        asio::buffer(destination.data() + filled, destination.size() - filled),
        asio::buffer(staged_.data() + staged_bytes_, staged_.size() - staged_bytes_)};
    error_code ec;
    const std::size_t n = co_await socket.async_read_some(iovecs, nothrow(ec));
    if (ec) co_return ec;
    const std::size_t to_payload = std::min(n, destination.size() - filled);
    filled += to_payload;
    staged_bytes_ += n - to_payload;
  }
  co_return boost::system::error_code{};
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
