// Pre-shared-key authentication of a feed session: CHALLENGE / AUTH messages and the HMAC.
//   auto challenge = make_challenge();                         // receiver, after a HELLO
//   auto auth = answer_challenge(key, challenge, stream_id, hello_body);        // sender
//   if (verify_auth(key, challenge, stream_id, hello_body, auth)) accept();     // receiver
// HMAC-SHA-256 and the random nonces come from GnuTLS; the comparison is constant time.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "protocol/wire.hpp"

namespace hdstream {

inline constexpr std::size_t kKeyBytes = 32;
inline constexpr std::size_t kNonceBytes = 32;
inline constexpr std::size_t kMacBytes = 32;
inline constexpr std::uint8_t kAuthSchemeHmacSha256 = 1;

using PresharedKey = std::array<std::byte, kKeyBytes>;
using Nonce = std::array<std::byte, kNonceBytes>;
using Mac = std::array<std::byte, kMacBytes>;

struct Challenge {
  std::uint8_t scheme = kAuthSchemeHmacSha256;
  Nonce receiver_nonce{};
  bool operator==(const Challenge&) const = default;
};

struct AuthResponse {
  std::uint8_t scheme = kAuthSchemeHmacSha256;
  Nonce sender_nonce{};
  Mac mac{};
  bool operator==(const AuthResponse&) const = default;
};

// A fresh challenge with a nonce from the system CSPRNG (never reused: 256 random bits).
Challenge make_challenge();

// HMAC-SHA-256(key, "hdstream-auth-v1" || receiver_nonce || sender_nonce || stream_id (BE16)
// || HELLO body): binds the answer to this connection's challenge, this stream id and this
// exact HELLO, so neither can be replayed nor altered.
Mac auth_mac(const PresharedKey& key, const Nonce& receiver_nonce, const Nonce& sender_nonce,
             std::uint16_t stream_id, std::span<const std::byte> hello_body);

// The sender's answer, with its own fresh nonce.
AuthResponse answer_challenge(const PresharedKey& key, const Challenge& challenge,
                              std::uint16_t stream_id, std::span<const std::byte> hello_body);

// Whether two keys are the same, compared in constant time.
bool same_key(const PresharedKey& a, const PresharedKey& b);

// Recomputes the MAC and compares it in constant time.
bool verify_auth(const PresharedKey& key, const Challenge& challenge, std::uint16_t stream_id,
                 std::span<const std::byte> hello_body, const AuthResponse& auth);

// Complete messages (48-byte header + body); decoders take the body. Unknown schemes and short
// bodies yield nullopt.
std::vector<std::byte> encode_challenge(std::uint16_t stream_id, const Challenge& challenge);
std::vector<std::byte> encode_auth(std::uint16_t stream_id, const AuthResponse& auth);
std::optional<Challenge> decode_challenge(std::span<const std::byte> body);
std::optional<AuthResponse> decode_auth(std::span<const std::byte> body);

}  // namespace hdstream
