#include "transport/key_file.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include <fmt/format.h>

namespace hdstream {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

PresharedKey parse_key_text(std::string_view contents, const std::string& origin) {
  PresharedKey key{};
  if (contents.size() == kKeyBytes) {
    std::memcpy(key.data(), contents.data(), kKeyBytes);
    return key;
  }
  std::string_view hex = contents;
  if (hex.ends_with('\n')) hex.remove_suffix(1);
  if (hex.ends_with('\r')) hex.remove_suffix(1);
  if (hex.size() != 2 * kKeyBytes) {
    throw KeyFileError(fmt::format(
        "key file {}: expected 64 hex digits (32 bytes) or 32 raw bytes, found {} bytes; "
        "make one with: umask 077; openssl rand -hex 32 > {}",
        origin, contents.size(), origin));
  }
  for (std::size_t i = 0; i < kKeyBytes; ++i) {
    const int high = hex_value(hex[2 * i]), low = hex_value(hex[2 * i + 1]);
    if (high < 0 || low < 0) {
      throw KeyFileError(fmt::format("key file {}: character {} is not a hex digit", origin,
                                     high < 0 ? 2 * i + 1 : 2 * i + 2));
    }
    key[i] = static_cast<std::byte>(high * 16 + low);
  }
  return key;
}

bool token_matches_key(std::string_view token, const PresharedKey& key) {
  if (token.size() != 2 * kKeyBytes) return false;  // also keeps raw bytes out
  try {
    return same_key(parse_key_text(token, "token"), key);
  } catch (const KeyFileError&) {
    return false;
  }
}

PresharedKey load_key_file(const std::filesystem::path& path) {
  const std::string name = path.string();
  struct stat info {};
  if (::stat(name.c_str(), &info) != 0) {
    throw KeyFileError(fmt::format("key file {}: {}", name, std::strerror(errno)));
  }
  if (!S_ISREG(info.st_mode))
    throw KeyFileError(fmt::format("key file {}: not a regular file", name));
  if ((info.st_mode & 077) != 0) {
    throw KeyFileError(fmt::format(
        "key file {} is readable or writable by others (mode {:03o}); fix: chmod 600 {}", name,
        info.st_mode & 0777, name));
  }
  if (info.st_size > 1024) {
    throw KeyFileError(fmt::format("key file {}: {} bytes is too large for a key", name,
                                   static_cast<long long>(info.st_size)));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw KeyFileError(fmt::format("key file {}: cannot open", name));
  const std::string contents((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  return parse_key_text(contents, name);
}

}  // namespace hdstream
