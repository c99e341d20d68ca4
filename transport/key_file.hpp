// Loading the pre-shared key for session authentication from a file (--key-file).
//   PresharedKey key = load_key_file("/etc/hdstream/portland.key");  // throws KeyFileError
// The file holds 32 bytes: 64 hex digits (one optional trailing newline) or 32 raw bytes,
// readable by its owner only. Make one with:  umask 077; openssl rand -hex 32 > portland.key
#pragma once

#include <filesystem>
#include <memory>
#include <stdexcept>

#include "protocol/auth.hpp"

namespace hdstream {

// One line naming the file and what to fix.
class KeyFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

PresharedKey load_key_file(const std::filesystem::path& path);

// Parses the file's contents (no permission check); throws KeyFileError naming `origin`.
PresharedKey parse_key_text(std::string_view contents, const std::string& origin);

// Whether `token` is `key` written as its 64 hex digits (an HTTP bearer token: the control key
// file's text), compared in constant time. Anything else is false.
bool token_matches_key(std::string_view token, const PresharedKey& key);

}  // namespace hdstream
