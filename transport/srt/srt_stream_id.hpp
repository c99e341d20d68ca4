// What an hdstream SRT caller tells the listener before the connection exists: its feed's rate,
// latency and expected RTT, carried in SRTO_STREAMID in SRT's access-control syntax ("#!::"
// then comma-separated key=value), so the listener sizes that connection's receive buffers for
// the feed it will really carry (docs/PROTOCOL.md#srt-mapping). A `check` capacity probe adds
// x-hdstream-probe=1, so the listener serves it beside the port's feed, not after it; leg B of a
// protected feed adds x-hdstream-leg=1, so the listener serves it beside leg A, not after it.
//   "#!::m=publish,x-hdstream-rate=270000000,x-hdstream-latency-ms=800,x-hdstream-rtt-ms=200"
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "protocol/handshake.hpp"

namespace hdstream {

struct SrtCallerPlan {
  std::uint64_t rate_bps = 0;
  std::chrono::milliseconds latency{0};
  std::chrono::milliseconds rtt{0};
  bool probe = false;    // a capacity probe (the HELLO must say so too), not a feed
  std::uint8_t leg = 0;  // the leg of a protected feed this connection carries (the HELLO's too)
  bool operator==(const SrtCallerPlan&) const = default;
};

// The largest values a listener accepts (beyond them the id is ignored, not trusted).
inline constexpr std::uint64_t kSrtStreamIdMaxRateBps = 400'000'000'000;  // 400 Gbps
inline constexpr std::chrono::milliseconds kSrtStreamIdMaxDuration{60'000};
inline constexpr std::uint8_t kSrtStreamIdMaxLeg = kMaxLegs - 1;

std::string encode_srt_stream_id(const SrtCallerPlan& plan);

// nullopt for anything but a well-formed hdstream id: another tool's stream id, a missing,
// repeated, non-decimal or out-of-range value. Keys it does not know are skipped.
std::optional<SrtCallerPlan> decode_srt_stream_id(std::string_view stream_id);

}  // namespace hdstream
