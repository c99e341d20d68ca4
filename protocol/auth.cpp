#include "protocol/auth.hpp"

#include <cstring>
#include <stdexcept>
#include <string_view>

#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>

#include "protocol/byte_order.hpp"
#include "protocol/checksum.hpp"

namespace hdstream {
namespace {

constexpr std::string_view kDomain = "hdstream-auth-v1";
constexpr std::size_t kChallengeBodyBytes = 4 + kNonceBytes;
constexpr std::size_t kAuthBodyBytes = 4 + kNonceBytes + kMacBytes;

Nonce random_nonce() {
  Nonce nonce;
  if (gnutls_rnd(GNUTLS_RND_RANDOM, nonce.data(), nonce.size()) != 0) {
    throw std::runtime_error("the system random generator failed (gnutls_rnd)");
  }
  return nonce;
}

std::vector<std::byte> message(MessageType type, std::uint16_t stream_id,
                               std::vector<std::byte> out) {
  auto body = std::span<const std::byte>(out).subspan(kHeaderBytes);
  MessageHeader header;
  header.type = type;
  header.stream_id = stream_id;
  header.payload_bytes = static_cast<std::uint32_t>(body.size());
  header.payload_xxh3 = payload_checksum(body);
  encode_header(header, std::span<std::byte, kHeaderBytes>(out.data(), kHeaderBytes));
  return out;
}

}  // namespace

Challenge make_challenge() {
  return Challenge{kAuthSchemeHmacSha256, random_nonce()};
}

Mac auth_mac(const PresharedKey& key, const Nonce& receiver_nonce, const Nonce& sender_nonce,
             std::uint16_t stream_id, std::span<const std::byte> hello_body) {
  // Handshake only, never per packet: one small allocation is fine.
  std::vector<std::byte> input(kDomain.size() + 2 * kNonceBytes + 2 + hello_body.size());
  std::size_t at = 0;
  std::memcpy(input.data(), kDomain.data(), kDomain.size());
  at += kDomain.size();
  std::memcpy(input.data() + at, receiver_nonce.data(), kNonceBytes);
  at += kNonceBytes;
  std::memcpy(input.data() + at, sender_nonce.data(), kNonceBytes);
  at += kNonceBytes;
  put_be<std::uint16_t>(std::span(input).subspan(at, 2), stream_id);
  at += 2;
  if (!hello_body.empty()) std::memcpy(input.data() + at, hello_body.data(), hello_body.size());
  Mac mac;
  if (gnutls_hmac_fast(GNUTLS_MAC_SHA256, key.data(), key.size(), input.data(), input.size(),
                       mac.data()) != 0) {
    throw std::runtime_error("HMAC-SHA-256 failed (gnutls_hmac_fast)");
  }
  return mac;
}

AuthResponse answer_challenge(const PresharedKey& key, const Challenge& challenge,
                              std::uint16_t stream_id, std::span<const std::byte> hello_body) {
  AuthResponse auth;
  auth.sender_nonce = random_nonce();
  auth.mac = auth_mac(key, challenge.receiver_nonce, auth.sender_nonce, stream_id, hello_body);
  return auth;
}

bool same_key(const PresharedKey& a, const PresharedKey& b) {
  return gnutls_memcmp(a.data(), b.data(), kKeyBytes) == 0;
}

bool verify_auth(const PresharedKey& key, const Challenge& challenge, std::uint16_t stream_id,
                 std::span<const std::byte> hello_body, const AuthResponse& auth) {
  if (auth.scheme != kAuthSchemeHmacSha256) return false;
  const Mac expected =
      auth_mac(key, challenge.receiver_nonce, auth.sender_nonce, stream_id, hello_body);
  return gnutls_memcmp(expected.data(), auth.mac.data(), kMacBytes) == 0;
}

std::vector<std::byte> encode_challenge(std::uint16_t stream_id, const Challenge& challenge) {
  std::vector<std::byte> out(kHeaderBytes + kChallengeBodyBytes);
  ByteWriter w{std::span(out).subspan(kHeaderBytes)};
  w.put<std::uint8_t>(challenge.scheme);
  w.put<std::uint8_t>(0);  // reserved
  w.put<std::uint16_t>(0);
  w.put_bytes(challenge.receiver_nonce);
  return message(MessageType::challenge, stream_id, std::move(out));
}

std::vector<std::byte> encode_auth(std::uint16_t stream_id, const AuthResponse& auth) {
  std::vector<std::byte> out(kHeaderBytes + kAuthBodyBytes);
  ByteWriter w{std::span(out).subspan(kHeaderBytes)};
  w.put<std::uint8_t>(auth.scheme);
  w.put<std::uint8_t>(0);  // reserved
  w.put<std::uint16_t>(0);
  w.put_bytes(auth.sender_nonce);
  w.put_bytes(auth.mac);
  return message(MessageType::auth, stream_id, std::move(out));
}

std::optional<Challenge> decode_challenge(std::span<const std::byte> body) {
  ByteReader r(body);
  Challenge challenge;
  std::uint8_t reserved8 = 0;
  std::uint16_t reserved16 = 0;
  std::span<const std::byte> nonce;
  if (!(r.get(challenge.scheme) && r.get(reserved8) && r.get(reserved16) &&
        r.get_bytes(kNonceBytes, nonce))) {
    return std::nullopt;
  }
  if (challenge.scheme != kAuthSchemeHmacSha256) return std::nullopt;
  std::memcpy(challenge.receiver_nonce.data(), nonce.data(), kNonceBytes);
  return challenge;
}

std::optional<AuthResponse> decode_auth(std::span<const std::byte> body) {
  ByteReader r(body);
  AuthResponse auth;
  std::uint8_t reserved8 = 0;
  std::uint16_t reserved16 = 0;
  std::span<const std::byte> nonce, mac;
  if (!(r.get(auth.scheme) && r.get(reserved8) && r.get(reserved16) &&
        r.get_bytes(kNonceBytes, nonce) && r.get_bytes(kMacBytes, mac))) {
    return std::nullopt;
  }
  if (auth.scheme != kAuthSchemeHmacSha256) return std::nullopt;
  std::memcpy(auth.sender_nonce.data(), nonce.data(), kNonceBytes);
  std::memcpy(auth.mac.data(), mac.data(), kMacBytes);
  return auth;
}

}  // namespace hdstream
