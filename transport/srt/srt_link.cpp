#include "transport/srt/srt_link.hpp"

#include <thread>

#include "common/clock.hpp"
#include "common/log.hpp"
#include "common/units.hpp"

namespace hdstream {
std::shared_ptr<spdlog::logger> srt_log() {
  return logger("srt");
}

SrtPlan srt_plan(std::uint64_t rate_bps, const SrtSettings& settings,
                 std::chrono::nanoseconds rtt) {
  SrtPlan plan;
  plan.rate_bps = rate_bps;
  plan.latency = settings.latency;
  plan.rtt = rtt;
  plan.passphrase = settings.passphrase;
  plan.key_length_bytes = settings.key_length_bytes;
  plan.fec = settings.fec;
  if (plan.fec) plan.payload_bytes = kSrtMaxPayloadBytes - kSrtFecHeaderBytes;
  return plan;
}

std::uint32_t srt_chunk_bytes(const SrtSettings& settings) {
  return settings.fec ? kSrtFecChunkBytes : kSrtChunkBytes;
}

void publish_srt_stats(const SrtStats& stats, bool sender, StreamCounters& counters) {
  counters.rtt_ms.store(stats.rtt_ms, std::memory_order_relaxed);
  counters.retransmits.store(sender ? stats.sent_retransmits : stats.received_retransmits,
                             std::memory_order_relaxed);
  if (sender) counters.segments_sent.store(stats.sent_packets, std::memory_order_relaxed);
  auto& srt = counters.srt;
  srt.lost_packets.store(sender ? stats.send_lost : stats.receive_lost, std::memory_order_relaxed);
  srt.dropped_packets.store(sender ? stats.send_dropped : stats.receive_dropped,
                            std::memory_order_relaxed);
  srt.belated_packets.store(stats.belated, std::memory_order_relaxed);
  srt.buffer_ms.store(sender ? stats.send_buffer_ms : stats.receive_buffer_ms,
                      std::memory_order_relaxed);
  // FEC: the feed's FEC packets as sent or received; only the receiver rebuilds the feed's
  // packets (a sender's filter sees just the receiver's reports).
  srt.fec_packets.store(sender ? stats.fec_sent : stats.fec_received, std::memory_order_relaxed);
  srt.fec_recovered.store(sender ? 0 : stats.fec_recovered, std::memory_order_relaxed);
  srt.fec_uncorrectable.store(sender ? 0 : stats.fec_uncorrectable, std::memory_order_relaxed);
  srt.present.store(true, std::memory_order_relaxed);
}

namespace {

// FEC rebuilds a packet once its row or column has arrived: a matrix that takes longer than the
// latency to send at the feed's rate rebuilds nothing in time.
void warn_if_fec_outlasts_latency(const std::string& filter, const SrtPlan& plan,
                                  std::uint16_t stream_id) {
  if (plan.rate_bps == 0) return;
  std::optional<SrtFec> fec;
  try {
    fec = parse_srt_fec(filter);
  } catch (const SrtFecError&) {
    return;
  }
  const double packet_bits = 8.0 * plan.payload_bytes;
  const auto spans = std::chrono::duration<double>(fec->matrix_packets() * packet_bits /
                                                   static_cast<double>(plan.rate_bps));
  if (spans > plan.latency) {
    srt_log()->warn(
        "stream {}: the FEC matrix ({} packets) takes {} to send at {}, longer than the latency "
        "{}: FEC cannot rebuild a lost packet in time (a smaller --srt-fec or a larger --latency)",
        stream_id, fec->matrix_packets(),
        format_duration(std::chrono::duration_cast<std::chrono::nanoseconds>(spans)),
        format_rate(static_cast<double>(plan.rate_bps)), format_duration(plan.latency));
  }
}

}  // namespace

std::optional<SrtSocket> connect_srt_caller(const SrtPlan& plan, const Endpoint& remote,
                                            const std::string& source,
                                            std::chrono::nanoseconds patience,
                                            const std::atomic<bool>& stopped,
                                            std::uint16_t stream_id) {
  const auto deadline = deadline_after(patience);
  auto backoff = std::chrono::milliseconds(20);
  for (;;) {
    try {
      SrtSocket socket = SrtSocket::caller(plan);
      if (!source.empty()) {
        try {
          socket.bind_source(source);
        } catch (const SrtError& error) {
          // An address this host does not have does not come with time: no retries.
          srt_log()->error("stream {}: {}", stream_id, error.what());
          return std::nullopt;
        }
      }
      socket.connect(remote);
      if (const std::string filter = socket.packet_filter(); !filter.empty()) {
        srt_log()->info("stream {}: SRT packet filter {}{}", stream_id, filter,
                        plan.fec ? "" : " (the receiver's --srt-fec)");
        warn_if_fec_outlasts_latency(filter, plan, stream_id);
      }
      return socket;
    } catch (const SrtError& error) {
      if (error.wrong_passphrase()) {
        srt_log()->error(
            "stream {}: {} refused the connection: wrong passphrase (check --key-file "
            "on both ends)",
            stream_id, remote.to_string());
        return std::nullopt;
      }
      if (error.filter_conflict()) {
        srt_log()->error(
            "stream {}: {} refused the connection: its packet filter does not agree with this "
            "sender's --srt-fec {} (check --srt-fec on both ends)",
            stream_id, remote.to_string(), plan.fec ? plan.fec->filter() : "(none)");
        return std::nullopt;
      }
      if (stopped || std::chrono::steady_clock::now() + backoff > deadline) {
        if (!stopped) {
          srt_log()->error("stream {}: {} (gave up after {})", stream_id, error.what(),
                           format_duration(patience));
        }
        return std::nullopt;
      }
      std::this_thread::sleep_for(backoff);  // this thread's own backoff, not synchronisation
      backoff = std::min(backoff * 2, std::chrono::milliseconds(1000));
    }
  }
}

bool send_srt_message(SrtSocket& socket, std::span<const std::byte> message,
                      const std::atomic<bool>& stopped) {
  while (!stopped) {
    switch (socket.send(message)) {
      case SrtIo::ok:
        return true;
      case SrtIo::timeout:
        continue;  // the send buffer is full: look at stopped and retry
      case SrtIo::closed:
        return false;
    }
  }
  return false;
}

}  // namespace hdstream
