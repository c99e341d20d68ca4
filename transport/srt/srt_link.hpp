// What both SRT ends share, whatever they carry (hdstream chunks or MPEG-TS): the packet-sized
// chunk, the socket plan from a feed's rate and settings, the caller's connect loop, a message
// send that waits out a full send buffer, and libsrt's statistics in the common counters.
//   SrtPlan plan = srt_plan(rate_bps, settings, rtt);
//   std::optional<SrtSocket> s = connect_srt_caller(plan, remote, "", 10s, stopped, stream_id);
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "common/endpoint.hpp"
#include "protocol/wire.hpp"
#include "stats/counters.hpp"
#include "transport/srt/srt_socket.hpp"
#include "transport/transport.hpp"

namespace spdlog {
class logger;
}

namespace hdstream {

// The `srt` logger every SRT end writes to.
std::shared_ptr<spdlog::logger> srt_log();

// Chunk payload that fills one SRT packet (1408 bytes), and one that leaves room for the FEC
// filter's header (1404): libsrt lowers SRTO_PAYLOADSIZE to 1452 once a filter is in force.
inline constexpr std::uint32_t kSrtChunkBytes = kSrtMaxPayloadBytes - kHeaderBytes;
inline constexpr std::uint32_t kSrtFecChunkBytes = kSrtChunkBytes - kSrtFecHeaderBytes;

// A feed's last message each way (the sender's END, the receiver's last report) is repeated at
// this interval until the peer answers: no later packet would show its loss, and live mode
// resends only what the peer reports missing.
inline constexpr std::chrono::milliseconds kSrtLastMessageRepeat{100};

// The chunk size a sender with these settings plans (with --srt-fec, kSrtFecChunkBytes).
std::uint32_t srt_chunk_bytes(const SrtSettings& settings);

// The SRT settings every sender and receiver derives from the feed and the options.
SrtPlan srt_plan(std::uint64_t rate_bps, const SrtSettings& settings, std::chrono::nanoseconds rtt);

// Samples libsrt's stats into the common counters (sender or receiver view).
void publish_srt_stats(const SrtStats& stats, bool sender, StreamCounters& counters);

// The caller side shared by every SRT sender (hdstream chunks or MPEG-TS): connects from
// `source` if set (a path's own address, presets' bind_a / bind_b), retrying with backoff (20 ms
// doubling to 1 s) for `patience`. nullopt, with the reason logged, on a source address this
// host does not have, a wrong passphrase or a packet filter the listener does not agree with
// (--srt-fec), once patience runs out, or once `stopped` is set. Logs the packet filter in
// force, if any.
std::optional<SrtSocket> connect_srt_caller(const SrtPlan& plan, const Endpoint& remote,
                                            const std::string& source,
                                            std::chrono::nanoseconds patience,
                                            const std::atomic<bool>& stopped,
                                            std::uint16_t stream_id);

// Sends one message, retrying while the send buffer is full; false once the connection is
// closed or `stopped` is set (each try returns within 100 ms).
bool send_srt_message(SrtSocket& socket, std::span<const std::byte> message,
                      const std::atomic<bool>& stopped);

}  // namespace hdstream
