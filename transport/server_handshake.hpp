// The receiving side of the HELLO / CHALLENGE / AUTH / HELLO_ACK exchange and the listener
// set-up, shared by the tcp and mtcp receivers.
//   listen_for_feeds(listener->acceptor(), options.listen, streams, key.has_value(), "mtcp");
//   auto intake = co_await read_hello(socket, 5s, peer, TransportKind::mtcp, "mtcp", key);
//   if (intake.hello) ... else if (intake.reply) co_await send_hello_ack(socket, id, ...);
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "common/asio.hpp"
#include "common/endpoint.hpp"
#include "common/tcp_listener.hpp"
#include "protocol/auth.hpp"
#include "protocol/handshake.hpp"
#include "transport/hello_intake.hpp"

namespace hdstream {

// A receiver's listener: opens, binds and listens on `listen` (throws std::system_error naming
// the address), logs where and for how many streams, and warns when it listens beyond loopback
// without a key. `component` names the logger and the transport ("tcp", "mtcp").
void listen_for_feeds(tcp::acceptor& acceptor, const Endpoint& listen, std::size_t streams,
                      bool has_key, const std::string& component);

// The limits of a feed listener serving `streams` under a process descriptor limit of `nofile`
// (RLIMIT_NOFILE; docs/SECURITY.md, "Connections"): descriptors are kept in reserve for what an
// established feed needs (every sub-connection of both legs of every stream, its recordings,
// GStreamer's and libsrt's own), and half of the rest may be connections without a handshake;
// one address may hold as many of those as a sender of every stream opens at once.
TcpListenerOptions feed_listener_options(std::size_t streams, std::uint64_t nofile);
// The same under this process's own descriptor limit.
TcpListenerOptions feed_listener_options(std::size_t streams);

// "host:port" of the socket's peer, for log lines.
std::string peer_name(const tcp::socket& socket);

// Reads a HELLO within `timeout` (the socket is closed when it expires) and examines it
// (hello_intake.hpp). With a `key`, the peer must first answer a CHALLENGE within that time
// (docs/SECURITY.md): nothing about this receiver is revealed before it does. Logs what it closes,
// naming `peer`. `component` names the logger. Parameters by value: this is a coroutine.
awaitable<HelloIntake> read_hello(tcp::socket& socket, std::chrono::nanoseconds timeout,
                                  std::string peer, TransportKind transport, std::string component,
                                  std::optional<PresharedKey> key);

// How a refused HELLO is logged: with the lines any stranger can provoke (held back in a
// flood), in full (the peer proved the receiver's key: an operator's own sender is never left
// without the reason), or not at all (the caller logged it, rate-limited).
enum class RefusalLog : std::uint8_t { stranger, proven, none };

// Writes HELLO_ACK; a refusal is logged as a warning first, as `log` says. false if the write
// failed.
awaitable<bool> send_hello_ack(tcp::socket& socket, std::uint16_t stream_id, AckStatus status,
                               std::string reason, const std::string& peer,
                               const std::string& component, RefusalLog log = RefusalLog::stranger);

}  // namespace hdstream
