// HTTP basic authentication against bcrypt hashes (--web-config's basic_auth_users), as
// Prometheus's exporter-toolkit does it: libcrypt's bcrypt, one verification per new
// credential, a known-good credential remembered (by its SHA-256, never in clear) so that a
// scraper polling every second does not cost a bcrypt each time. An unknown user costs the
// same bcrypt as a known one, so timing does not tell which users exist.
// verify() is slow on purpose (~50 ms at cost 10): call it off the io threads.
//   PasswordCheck check(config.basic_auth_users);
//   auto credentials = parse_basic_authorization(request["Authorization"]);
//   bool ok = credentials && (check.remembered(*credentials) || check.verify(*credentials));
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace hdstream {

struct Credentials {
  std::string user;
  std::string password;
};

// "Basic <base64 of user:password>" -> the credentials; anything else -> nullopt.
std::optional<Credentials> parse_basic_authorization(std::string_view header);

// "Basic <base64 of user:password>" for a client.
std::string basic_authorization(const Credentials& credentials);

// Whether `hash` is a bcrypt hash libcrypt can check passwords against.
bool is_bcrypt_hash(std::string_view hash);

class PasswordCheck {
 public:
  // At most this many credentials are remembered; past it the oldest half is forgotten.
  static constexpr std::size_t kRemembered = 64;

  explicit PasswordCheck(std::map<std::string, std::string> users);

  bool enabled() const { return !users_.empty(); }
  // True when these credentials were verified before: no bcrypt needed. Thread-safe.
  bool remembered(const Credentials& credentials) const;
  // The bcrypt verification (remembering a success). Thread-safe; slow.
  bool verify(const Credentials& credentials);

 private:
  using Digest = std::array<std::uint8_t, 32>;
  static Digest digest(const Credentials& credentials);

  std::map<std::string, std::string> users_;
  std::string unknown_user_setting_;
  mutable std::mutex mutex_;
  std::set<Digest> good_;
};

}  // namespace hdstream
