// The client side of a feed connection, shared by tcp and mtcp: connect with backoff, socket
// tuning (with the sysctl fix when the kernel caps buffers), and the HELLO / HELLO_ACK exchange
// under a watchdog.
//   if (co_await connect_with_retry(socket, options.destination, options.source,
//                                   options.connect_patience, stopped, "tcp", label)) {
//                                   tune_sender_socket(socket, options, label);
//     auto outcome = co_await client_handshake(socket, hello_bytes, 5s, keep_alive); }
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "common/asio.hpp"
#include "common/endpoint.hpp"
#include "transport/transport.hpp"

namespace hdstream {

// How long one connection attempt may wait for the far end's answer before it is abandoned and
// retried: a path that has come back is then found within about this long.
inline constexpr std::chrono::milliseconds kConnectAttemptTimeout{1000};

// Resolves and connects, retrying a refused or unanswered connect (each attempt bounded by
// kConnectAttemptTimeout) with exponential backoff (20 ms .. 1 s) for `patience`, from local
// address `source` when it is set (a path's own interface: presets bind_a / bind_b). Logs the
// final failure on `component`'s logger, naming `label` (e.g. "stream 2"). `stopped` is checked
// between attempts (it lives on the caller's strand).
awaitable<bool> connect_with_retry(tcp::socket& socket, const Endpoint& destination,
                                   const std::string& source, std::chrono::nanoseconds patience,
                                   const bool& stopped, const std::string& component,
                                   const std::string& label);

// TCP_NODELAY, congestion control, NOTSENT_LOWAT, pacing and the send buffer from rate x RTT;
// warns with the exact sysctl fix when the kernel caps the buffer. Returns the effective send
// buffer in bytes (0: left to autotuning).
std::uint64_t tune_sender_socket(tcp::socket& socket, const SenderOptions& options,
                                 const std::string& component, const std::string& label);

// How long a sender waits, after END, for the receiver to confirm it has everything: the
// handshake timeout, plus two round trips, plus the time what is still in the socket's send
// queue (SIOCOUTQ) takes at the feed's rate. On a 264 ms path with a full BDP-sized buffer the
// queue alone can take seconds.
std::chrono::nanoseconds end_confirmation_patience(tcp::socket& socket,
                                                   const SenderOptions& options);

struct HandshakeOutcome {
  bool accepted = false;
  bool challenged = false;  // the receiver asked for the pre-shared key
  std::string error;        // why not, one line (empty when accepted)
  std::string receiver;     // accepted: the receiver as it named itself (named_receiver)
};

// Writes `hello` (a complete HELLO message) and reads the HELLO_ACK. A receiver silent for
// `timeout` gets its socket closed. `keep_alive` holds the socket's owner until the watchdog
// has fired or been cancelled.
// With `key`, a CHALLENGE from the receiver is answered (HMAC, docs/SECURITY.md).
awaitable<HandshakeOutcome> client_handshake(tcp::socket& socket, std::span<const std::byte> hello,
                                             std::chrono::nanoseconds timeout,
                                             std::shared_ptr<void> keep_alive,
                                             std::optional<PresharedKey> key = std::nullopt);

}  // namespace hdstream
