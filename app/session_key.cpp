#include "app/session_key.hpp"

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "app/usage_error.hpp"
#include "transport/key_file.hpp"

namespace hdstream {
namespace {

// libsrt accepts passphrases of 10 to 79 characters; the trailing newline of a file is not
// part of it.
std::string read_passphrase(const std::string& path, std::string_view origin) {
  std::ifstream in(path);
  if (!in) throw UsageError(fmt::format("{}: cannot read '{}'", origin, path));
  std::stringstream text;
  text << in.rdbuf();
  std::string passphrase = text.str();
  while (!passphrase.empty() && (passphrase.back() == '\n' || passphrase.back() == '\r')) {
    passphrase.pop_back();
  }
  if (passphrase.size() < 10 || passphrase.size() > 79) {
    throw UsageError(fmt::format("{}: the passphrase in '{}' has {} characters; SRT needs 10 to 79",
                                 origin, path, passphrase.size()));
  }
  return passphrase;
}

}  // namespace

void decide_session_key(CommonOptions& options, TransportKind transport, const std::string& path,
                        std::string_view origin) {
  options.key.reset();
  options.srt_passphrase.clear();
  if (path.empty()) return;
  if (transport == TransportKind::srt) {
    options.srt_passphrase = read_passphrase(path, origin);
    return;
  }
  try {
    options.key = load_key_file(path);
  } catch (const KeyFileError& error) {
    throw UsageError(fmt::format("{}: {}", origin, error.what()));
  }
}

}  // namespace hdstream
