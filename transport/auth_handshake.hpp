// The authentication step of a feed handshake over a stream socket, both ends.
//   receiver, after a valid HELLO:  auto problem = co_await demand_auth(socket, key, id, body);
//   sender, on a CHALLENGE reply:   auto problem = co_await answer_auth(socket, key, id, ...);
// Both return an empty string on success, else one line for the log. The caller's handshake
// watchdog bounds the time; memory is bounded by kMaxControlBytes.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/asio.hpp"
#include "protocol/auth.hpp"

namespace hdstream {

struct AuthCheck {
  bool ok = false;
  bool connection_lost = false;  // nothing to refuse: the peer is gone or timed out
  std::string problem;           // why the peer was not authenticated
};

// Receiver: sends a fresh CHALLENGE, reads the AUTH, verifies it. Parameters by value: these
// are coroutines.
awaitable<AuthCheck> demand_auth(tcp::socket& socket, PresharedKey key, std::uint16_t stream_id,
                                 std::vector<std::byte> hello_body);

// Sender: answers a CHALLENGE body with an AUTH message.
awaitable<AuthCheck> answer_auth(tcp::socket& socket, PresharedKey key, std::uint16_t stream_id,
                                 std::vector<std::byte> challenge_body,
                                 std::vector<std::byte> hello_body);

}  // namespace hdstream
