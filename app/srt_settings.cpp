#include "app/srt_settings.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "app/runtime.hpp"
#include "protocol/feed_limits.hpp"

namespace hdstream {
namespace {

// libsrt accepts passphrases of 10 to 79 characters; the trailing newline of a file is not
// part of it.
std::string read_passphrase(const std::string& path) {
  if (path.empty()) return {};
  std::ifstream in(path);
  if (!in) throw UsageError(fmt::format("--key-file: cannot read '{}'", path));
  std::stringstream text;
  text << in.rdbuf();
  std::string passphrase = text.str();
  while (!passphrase.empty() && (passphrase.back() == '\n' || passphrase.back() == '\r')) {
    passphrase.pop_back();
  }
  if (passphrase.size() < 10 || passphrase.size() > 79) {
    throw UsageError(
        fmt::format("--key-file: the passphrase in '{}' has {} characters; SRT needs 10 to 79",
                    path, passphrase.size()));
  }
  return passphrase;
}

}  // namespace

SrtSettings srt_settings(const SendOptions& options) {
  SrtSettings settings;
  settings.passphrase = read_passphrase(options.key_file);
  settings.key_length_bytes = static_cast<std::uint8_t>(options.key_length_bytes);
  // Chosen: 4 x RTT, within what a receiver accepts (protocol/feed_limits.hpp).
  settings.latency = options.latency_given
                         ? options.latency
                         : std::clamp<std::chrono::nanoseconds>(
                               4 * options.expected_rtt, std::chrono::milliseconds(120),
                               std::chrono::milliseconds(kMaxLatencyBudgetMs));
  return settings;
}

SrtSettings srt_settings(const RecvOptions& options) {
  SrtSettings settings;
  settings.passphrase = read_passphrase(options.key_file);
  settings.latency = options.latency;
  return settings;
}

}  // namespace hdstream
