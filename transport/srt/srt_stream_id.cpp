#include "transport/srt/srt_stream_id.hpp"

#include <charconv>

#include <fmt/format.h>

namespace hdstream {
namespace {

constexpr std::string_view kPrefix = "#!::";
constexpr std::string_view kRate = "x-hdstream-rate";
constexpr std::string_view kLatency = "x-hdstream-latency-ms";
constexpr std::string_view kRtt = "x-hdstream-rtt-ms";
constexpr std::string_view kProbe = "x-hdstream-probe";  // "1"; absent: a feed
constexpr std::string_view kLeg = "x-hdstream-leg";      // "1" (leg B); absent: leg A

// Digits only (no sign, no space), at most `max`.
std::optional<std::uint64_t> decimal(std::string_view text, std::uint64_t max) {
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc{} || end != text.data() + text.size() || value > max) {
    return std::nullopt;
  }
  return value;
}

}  // namespace

std::string encode_srt_stream_id(const SrtCallerPlan& plan) {
  // A feed's id is what it always was: only a probe carries the probe key, only leg B the leg
  // key.
  return fmt::format("{}m=publish,{}={},{}={},{}={}{}{}", kPrefix, kRate, plan.rate_bps, kLatency,
                     plan.latency.count(), kRtt, plan.rtt.count(),
                     plan.probe ? fmt::format(",{}=1", kProbe) : std::string(),
                     plan.leg > 0 ? fmt::format(",{}={}", kLeg, plan.leg) : std::string());
}

std::optional<SrtCallerPlan> decode_srt_stream_id(std::string_view id) {
  if (!id.starts_with(kPrefix)) return std::nullopt;
  id.remove_prefix(kPrefix.size());
  std::optional<std::uint64_t> rate, latency_ms, rtt_ms, probe, leg;
  const auto max_ms = static_cast<std::uint64_t>(kSrtStreamIdMaxDuration.count());
  while (!id.empty()) {
    const std::size_t comma = id.find(',');
    const std::string_view pair = id.substr(0, comma);
    id = comma == std::string_view::npos ? std::string_view{} : id.substr(comma + 1);
    const std::size_t equals = pair.find('=');
    if (equals == std::string_view::npos) return std::nullopt;
    const std::string_view key = pair.substr(0, equals);
    const std::string_view value = pair.substr(equals + 1);
    std::optional<std::uint64_t>* slot = key == kRate      ? &rate
                                         : key == kLatency ? &latency_ms
                                         : key == kRtt     ? &rtt_ms
                                         : key == kProbe   ? &probe
                                         : key == kLeg     ? &leg
                                                           : nullptr;
    if (slot == nullptr) continue;               // a standard key (m=, r=, u=...) or a newer one
    if (slot->has_value()) return std::nullopt;  // said twice: trust neither
    *slot = decimal(value, slot == &rate    ? kSrtStreamIdMaxRateBps
                           : slot == &probe ? 1
                           : slot == &leg   ? kSrtStreamIdMaxLeg
                                            : max_ms);
    if (!slot->has_value()) return std::nullopt;
  }
  if (!rate || *rate == 0 || !latency_ms || !rtt_ms) return std::nullopt;
  return SrtCallerPlan{*rate, std::chrono::milliseconds(*latency_ms),
                       std::chrono::milliseconds(*rtt_ms), probe.value_or(0) == 1,
                       static_cast<std::uint8_t>(leg.value_or(0))};
}

}  // namespace hdstream
