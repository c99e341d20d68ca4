#include "app/srt_settings.hpp"

#include <fmt/format.h>

#include "app/usage_error.hpp"
#include "transport/feed_request.hpp"

namespace hdstream {
namespace {

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
  settings.passphrase = options.common.srt_passphrase;
  settings.key_length_bytes = static_cast<std::uint8_t>(options.key_length_bytes);
  // The sender's latency is a transport policy: sender_options() chooses it.
  settings.latency = latency_budget(TransportKind::srt, options.latency, options.latency_given,
                                    options.expected_rtt);
  return settings;
}

SrtSettings srt_settings(const RecvOptions& options) {
  SrtSettings settings;
  settings.passphrase = options.common.srt_passphrase;
  settings.latency = options.latency;
  settings.fec = fec_of(options.srt_fec);
  return settings;
}

}  // namespace hdstream
