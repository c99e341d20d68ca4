#include "telemetry/password_check.hpp"

#include <crypt.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/sha.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <memory>
#include <vector>

namespace hdstream {
namespace {

// libcrypt's bcrypt of `password` with `hash` as its setting; empty when libcrypt refuses it.
std::string bcrypt(const std::string& password, const std::string& hash) {
  auto data = std::make_unique<crypt_data>();  // 32 KiB: not on the stack
  const char* result = crypt_rn(password.c_str(), hash.c_str(), data.get(), sizeof(crypt_data));
  if (result == nullptr || result[0] == '*') return {};
  return result;
}

bool equal_in_constant_time(const std::string& a, const std::string& b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace

std::optional<Credentials> parse_basic_authorization(std::string_view header) {
  constexpr std::string_view kScheme = "basic ";
  if (header.size() <= kScheme.size() ||
      !std::equal(kScheme.begin(), kScheme.end(), header.begin(), [](char a, char b) {
        return a == std::tolower(static_cast<unsigned char>(b));
      })) {
    return std::nullopt;
  }
  std::string_view encoded = header.substr(kScheme.size());
  while (!encoded.empty() && encoded.front() == ' ') encoded.remove_prefix(1);
  while (!encoded.empty() && encoded.back() == ' ') encoded.remove_suffix(1);
  if (encoded.empty() || encoded.size() % 4 != 0 || encoded.size() > 4096) return std::nullopt;
  std::vector<unsigned char> decoded(encoded.size() / 4 * 3);
  const int length =
      EVP_DecodeBlock(decoded.data(), reinterpret_cast<const unsigned char*>(encoded.data()),
                      static_cast<int>(encoded.size()));
  if (length < 0) return std::nullopt;
  // EVP_DecodeBlock counts the padding's bytes too.
  const auto padding = static_cast<int>(encoded.size() - encoded.find_last_not_of('=') - 1);
  if (padding > 2) return std::nullopt;
  const std::string text(decoded.begin(), decoded.begin() + (length - padding));
  const auto colon = text.find(':');
  if (colon == std::string::npos || colon == 0) return std::nullopt;
  return Credentials{text.substr(0, colon), text.substr(colon + 1)};
}

std::string basic_authorization(const Credentials& credentials) {
  const std::string text = credentials.user + ":" + credentials.password;
  std::string encoded(4 * ((text.size() + 2) / 3) + 1, '\0');
  const int length = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(encoded.data()),
                                     reinterpret_cast<const unsigned char*>(text.data()),
                                     static_cast<int>(text.size()));
  encoded.resize(static_cast<std::size_t>(length));
  return "Basic " + encoded;
}

bool is_bcrypt_hash(std::string_view hash) {
  const bool bcrypt_prefix =
      hash.starts_with("$2a$") || hash.starts_with("$2b$") || hash.starts_with("$2y$");
  return bcrypt_prefix && hash.size() == 60 && !bcrypt("", std::string(hash)).empty();
}

PasswordCheck::PasswordCheck(std::map<std::string, std::string> users) : users_(std::move(users)) {
  if (users_.empty()) return;
  // An unknown user's password is checked against a random salt at the first user's cost
  // ("$2b$10$..." is cost 10): the same work as a real user's.
  const std::string& first = users_.begin()->second;
  const unsigned long cost = std::strtoul(first.c_str() + 4, nullptr, 10);
  char setting[CRYPT_GENSALT_OUTPUT_SIZE];
  if (crypt_gensalt_rn("$2b$", cost, nullptr, 0, setting, sizeof setting) != nullptr) {
    unknown_user_setting_ = setting;
  }
}

PasswordCheck::Digest PasswordCheck::digest(const Credentials& credentials) {
  const std::string text = credentials.user + '\0' + credentials.password;
  Digest digest{};
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest.data());
  return digest;
}

bool PasswordCheck::remembered(const Credentials& credentials) const {
  const Digest key = digest(credentials);
  std::lock_guard lock(mutex_);
  return good_.contains(key);
}

bool PasswordCheck::verify(const Credentials& credentials) {
  const auto user = users_.find(credentials.user);
  if (user == users_.end()) {
    bcrypt(credentials.password, unknown_user_setting_);  // the same work as a real user
    return false;
  }
  if (!equal_in_constant_time(bcrypt(credentials.password, user->second), user->second)) {
    return false;
  }
  std::lock_guard lock(mutex_);
  if (good_.size() >= kRemembered) good_.clear();
  good_.insert(digest(credentials));
  return true;
}

}  // namespace hdstream
