// The receiving side of the HELLO / HELLO_ACK exchange and the listener set-up, shared by the
// tcp and mtcp receivers.
//   open_listener(acceptor, options.listen);
//   auto intake = co_await read_hello(socket, 5s, peer, TransportKind::mtcp);
//   if (intake.hello) ... else if (intake.reply) co_await send_hello_ack(socket, id, ...);
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "common/asio.hpp"
#include "protocol/handshake.hpp"
#include "transport/endpoint.hpp"

namespace hdstream {

// Opens, binds and listens; throws std::system_error naming the address.
void open_listener(tcp::acceptor& acceptor, const Endpoint& listen);

// "host:port" of the socket's peer, for log lines.
std::string peer_name(const tcp::socket& socket);

struct HelloIntake {
  std::uint16_t stream_id = 0;
  std::optional<Hello> hello;  // a valid HELLO for `transport`
  // When there is no hello: whether to answer with a refusal (the peer spoke our protocol) and
  // which; otherwise the connection is simply closed (already logged).
  bool reply = false;
  AckStatus status = AckStatus::invalid;
  std::string reason;
};

// Reads and validates a HELLO within `timeout` (the socket is closed when it expires). Logs
// what it closes, naming `peer`. `component` names the logger.
awaitable<HelloIntake> read_hello(tcp::socket& socket, std::chrono::nanoseconds timeout,
                                  const std::string& peer, TransportKind transport,
                                  const std::string& component);

// Writes HELLO_ACK; a refusal is logged as a warning first. false if the write failed.
awaitable<bool> send_hello_ack(tcp::socket& socket, std::uint16_t stream_id, AckStatus status,
                               std::string reason, const std::string& peer,
                               const std::string& component);

}  // namespace hdstream
