#include "app/srt_settings.hpp"

#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "app/runtime.hpp"
#include "transport/feed_request.hpp"

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

// --srt-fec was checked as the command line was parsed; this is its value.
std::optional<SrtFec> fec_of(const std::string& spec) {
  if (spec.empty()) return std::nullopt;
  try {
    return parse_srt_fec(spec);
  } catch (const SrtFecError& error) {
    throw UsageError(fmt::format("--srt-fec: {}", error.what()));
  }
}

}  // namespace

SrtSettings srt_settings(const SendOptions& options) {
  SrtSettings settings;
  settings.fec = fec_of(options.srt_fec);
  settings.passphrase = read_passphrase(options.key_file);
  settings.key_length_bytes = static_cast<std::uint8_t>(options.key_length_bytes);
  // The sender's latency is a transport policy: sender_options() chooses it.
  settings.latency = latency_budget(TransportKind::srt, options.latency, options.latency_given,
                                    options.expected_rtt);
  return settings;
}

SrtSettings srt_settings(const RecvOptions& options) {
  SrtSettings settings;
  settings.passphrase = read_passphrase(options.key_file);
  settings.latency = options.latency;
  settings.fec = fec_of(options.srt_fec);
  return settings;
}

}  // namespace hdstream
