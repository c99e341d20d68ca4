#include "transport/auth_handshake.hpp"

#include <fmt/format.h>

#include "transport/message_io.hpp"

namespace hdstream {

awaitable<AuthCheck> demand_auth(tcp::socket& socket, PresharedKey key, std::uint16_t stream_id,
                                 std::vector<std::byte> hello_body) {
  AuthCheck check;
  const Challenge challenge = make_challenge();
  auto message = encode_challenge(stream_id, challenge);
  error_code ec;
  co_await asio::async_write(socket, asio::buffer(message), nothrow(ec));
  if (ec) {
    check.connection_lost = true;
    co_return check;
  }
  auto read = co_await read_header(socket);
  std::vector<std::byte> body;
  BodyRead body_read;
  if (!read.error) body_read = co_await read_control_body(socket, read.header, body);
  if (read.detail != HeaderError::none) {
    check.problem = fmt::format("bad AUTH header: {}", to_string(read.detail));
    co_return check;
  }
  if (read.error || body_read.error) {
    check.connection_lost = true;
    co_return check;
  }
  if (read.header.type != MessageType::auth) {
    check.problem =
        "no key: the sender answered the challenge with another message "
        "(give it --key-file)";
    co_return check;
  }
  std::optional<AuthResponse> auth;
  if (body_read.checksum_ok && read.header.stream_id == stream_id) auth = decode_auth(body);
  if (!auth) {
    check.problem = "malformed AUTH";
    co_return check;
  }
  if (!verify_auth(key, challenge, stream_id, hello_body, *auth)) {
    check.problem = "authentication failed (wrong key, or a replayed answer)";
    co_return check;
  }
  check.ok = true;
  co_return check;
}

awaitable<AuthCheck> answer_auth(tcp::socket& socket, PresharedKey key, std::uint16_t stream_id,
                                 std::vector<std::byte> challenge_body,
                                 std::vector<std::byte> hello_body) {
  AuthCheck check;
  auto challenge = decode_challenge(challenge_body);
  if (!challenge) {
    check.problem = "malformed authentication challenge from the receiver";
    co_return check;
  }
  auto message = encode_auth(stream_id, answer_challenge(key, *challenge, stream_id, hello_body));
  error_code ec;
  co_await asio::async_write(socket, asio::buffer(message), nothrow(ec));
  if (ec) {
    check.connection_lost = true;
    check.problem = fmt::format("handshake failed: {}", ec.message());
    co_return check;
  }
  check.ok = true;
  co_return check;
}

}  // namespace hdstream
