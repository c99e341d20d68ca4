#include "transport/feed_request.hpp"

#include <algorithm>
#include <cmath>
#include <random>

#include <fmt/format.h>

#include "common/units.hpp"
#include "protocol/feed_limits.hpp"
#include "protocol/packetizer.hpp"
#include "transport/srt/srt_link.hpp"
#include "transport/tcp_tuning.hpp"

namespace hdstream {

std::chrono::nanoseconds latency_budget(TransportKind transport, std::chrono::nanoseconds latency,
                                        bool latency_given, std::chrono::nanoseconds expected_rtt) {
  if (latency_given || transport == TransportKind::tcp) return latency;
  // mtcp: a striped feed reorders within its budget, a lost chunk comes back after at least an
  // RTT, and K TCP start-ups take several RTTs to carry the feed between them. At 100 ms RTT,
  // 4 x RTT dropped 13 of the first 60 frames while the sub-connections ramped up; 10 x RTT
  // dropped none (docs/SCENARIOS.md). srt: libsrt's recommended 4 x RTT.
  const int rtts = transport == TransportKind::mtcp ? 10 : 4;
  constexpr std::chrono::nanoseconds kMaxLatency = std::chrono::milliseconds(kMaxLatencyBudgetMs);
  return std::max(latency, std::min<std::chrono::nanoseconds>(rtts * expected_rtt, kMaxLatency));
}

SenderOptions sender_options(const FeedRequest& request) {
  const TransportKind transport = request.transport;
  const bool unpaced = request.unpaced_frame_bytes > 0;
  SenderOptions options;
  options.destination = request.destination;
  options.source = request.source;
  options.stream_id = request.stream_id;
  options.expected_rtt = request.expected_rtt;
  options.connect_patience = request.connect_patience;
  options.reconnect_patience = request.reconnect_patience;
  options.key = request.key;

  Hello& hello = options.hello;
  hello.feed = request.feed;
  hello.transport = transport;
  if (request.probe) hello.flags |= kHelloProbe;
  if (unpaced) {
    // The HELLO's rate bounds the receiver's frames (protocol/feed_limits.hpp): announce at
    // least what frames of this size make at the feed's frame rate.
    hello.feed.bit_rate_bps = std::max(
        hello.feed.bit_rate_bps,
        static_cast<std::uint64_t>(std::ceil(static_cast<double>(request.unpaced_frame_bytes) *
                                             8.0 * hello.feed.frames_per_second())));
  }
  // SRT carries one chunk per packet: its chunk size is fixed by the packet size (less the
  // FEC filter's header with --srt-fec).
  hello.chunk_bytes =
      transport == TransportKind::srt ? srt_chunk_bytes(request.srt) : request.chunk_bytes;
  // mtcp: at most kMaxSubconnections (a preset may ask for more; the receiver refuses more).
  // srt: one connection unless asked (then a feed striped over K); a capacity probe measures
  // one connection, and a feed over two paths is not striped.
  if (transport == TransportKind::srt && request.connections > 1 && request.destination_b) {
    throw FeedRequestError("--conns: a feed over two paths (--dest-b) is not striped over srt");
  }
  hello.connections = static_cast<std::uint8_t>(
      transport == TransportKind::tcp ? 1
      : transport == TransportKind::srt
          ? (request.probe ? 1
                           : std::clamp<std::size_t>(request.connections, 1, kMaxSubconnections))
      : request.connections > 0 ? std::min<std::size_t>(request.connections, kMaxSubconnections)
                                : kDefaultMtcpConnections);
  hello.expected_rtt_us = static_cast<std::uint32_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(request.expected_rtt).count());

  // The limits apply to the largest plausible frame: synthetic frames have the size their rate
  // asks for, media frames their own (DNxHD 220 is ~0.9 MB, v210 1080 is 5.5 MB).
  const std::size_t frame_bytes =
      unpaced ? request.unpaced_frame_bytes : planned_frame_bytes(hello.feed);
  if (frame_bytes > kMaxFrameBytes) {
    throw FeedRequestError(
        fmt::format("--rate: {} at {:.2f} fps makes {} byte frames; the limit is {}",
                    format_rate(static_cast<double>(hello.feed.bit_rate_bps)),
                    hello.feed.frames_per_second(), frame_bytes, kMaxFrameBytes));
  }
  if (hello.chunk_bytes < min_chunk_bytes(frame_bytes)) {
    throw FeedRequestError(
        fmt::format("--chunk-size: frames of {} bytes need chunks of at least {}", frame_bytes,
                    min_chunk_bytes(frame_bytes)));
  }

  const auto latency =
      latency_budget(transport, request.latency, request.latency_given, request.expected_rtt);
  constexpr auto kMaxLatency = std::chrono::milliseconds(kMaxLatencyBudgetMs);
  if (latency > kMaxLatency) {
    throw FeedRequestError(fmt::format("--latency {}: a receiver accepts at most {}",
                                       format_duration(latency), format_duration(kMaxLatency)));
  }
  hello.latency_budget_ms = static_cast<std::uint32_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(latency).count());
  if (transport == TransportKind::srt) {
    options.srt = request.srt;
    options.srt.latency = latency;
  }
  // A live feed queues at most the latency budget's worth of frames (at least two).
  const double budget_frames =
      std::chrono::duration<double>(latency).count() * hello.feed.frames_per_second();
  options.max_queued_frames =
      std::max<std::size_t>(2, static_cast<std::size_t>(std::ceil(budget_frames)));

  options.tuning.congestion_control =
      choose_congestion_control(request.congestion_control, request.expected_rtt);
  // NOTSENT_LOWAT bounds a live feed's sender-side latency to about one frame unsent in the
  // kernel: a lower mark splits every frame's gather write into several sendmsg calls and
  // wake-ups (12 % more CPU per GB at 5 x 270 Mbps with 4 chunks). Memory-to-memory runs
  // (bench, unpaced) want throughput and set none.
  options.tuning.notsent_lowat_bytes =
      unpaced ? 0
              : static_cast<std::uint32_t>(
                    std::max<std::size_t>(4 * std::size_t{request.chunk_bytes}, frame_bytes));
  options.tuning.max_pacing_rate_bps = static_cast<std::uint64_t>(
      request.pacing_factor * static_cast<double>(hello.feed.bit_rate_bps));
  return options;
}

std::vector<SenderOptions> leg_options(const FeedRequest& request) {
  std::vector<SenderOptions> legs{sender_options(request)};
  if (!request.destination_b) return legs;
  if (request.probe) throw FeedRequestError("--dest-b: a capacity probe measures one path");
  std::random_device random;
  std::uint64_t feed_id = 0;
  while (feed_id == 0) feed_id = (std::uint64_t{random()} << 32) | random();
  legs.push_back(legs.front());
  for (std::uint8_t leg = 0; leg < 2; ++leg) {
    legs[leg].hello.legs = 2;
    legs[leg].hello.leg = leg;
    legs[leg].hello.feed_id = feed_id;
  }
  legs[1].destination = *request.destination_b;
  legs[1].source = request.source_b;
  return legs;
}

}  // namespace hdstream
