#include "transport/capacity_probe.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "common/units.hpp"

namespace hdstream {

std::string capacity_probes_busy(std::size_t max) {
  return fmt::format("capacity probes already running here: at most {} at once", max);
}

CapacityProbe::CapacityProbe(std::shared_ptr<spdlog::logger> log, std::uint16_t stream,
                             std::string peer)
    : log_(std::move(log)), stream_(stream), peer_(std::move(peer)) {}

void CapacityProbe::started(const Hello& hello, std::string_view how) {
  counters_.planned_bps.store(hello.feed.bit_rate_bps, std::memory_order_relaxed);
  counters_.latency_budget_ms.store(hello.latency_budget_ms, std::memory_order_relaxed);
  counters_.state.store(StreamState::running, std::memory_order_relaxed);
  log_->info(
      "stream {}: capacity probe from {} accepted {} ({} at {}), measured apart from the feed",
      stream_, peer_, how, to_string(hello.feed.codec),
      format_rate(static_cast<double>(hello.feed.bit_rate_bps)));
}

void CapacityProbe::frame(const Frame& frame) {
  jitter_.add(frame.ready_ns, frame.arrival_ns);
  counters_.jitter_ms.store(jitter_.jitter_ms(), std::memory_order_relaxed);
  counters_.latency_ms.store(static_cast<double>(frame.arrival_ns - frame.ready_ns) / 1e6,
                             std::memory_order_relaxed);
  counters_.add_frame(frame.data.size(), frame.arrival_ns);
  counters_.add_transit(frame.seq, frame.ready_ns, frame.arrival_ns);
}

void CapacityProbe::ended(bool clean) {
  counters_.state.store(clean ? StreamState::finished : StreamState::failed,
                        std::memory_order_relaxed);
  const std::uint64_t frames = counters_.frames.load(std::memory_order_relaxed);
  const std::uint64_t bytes = counters_.bytes.load(std::memory_order_relaxed);
  const std::int64_t span_ns = counters_.last_frame_ns.load(std::memory_order_relaxed) -
                               counters_.first_frame_ns.load(std::memory_order_relaxed);
  // n frames span n-1 intervals (as the stats summary counts a run).
  const double seconds = frames > 1 && span_ns > 0
                             ? static_cast<double>(span_ns) / 1e9 * static_cast<double>(frames) /
                                   static_cast<double>(frames - 1)
                             : 0.0;
  log_->info(
      "stream {}: capacity probe from {} ended ({}): {} frames, {} bytes verified, {:.1f} Mbps, "
      "{} drops, {} checksum errors",
      stream_, peer_, clean ? "clean" : "cut short", frames, bytes,
      seconds > 0 ? static_cast<double>(bytes) * 8 / seconds / 1e6 : 0.0,
      counters_.drops.load(std::memory_order_relaxed),
      counters_.checksum_errors.load(std::memory_order_relaxed));
}

void deliver_ready_frames(Reassembler& reassembler, std::int64_t now_ns, CapacityProbe* probe,
                          FrameConsumer& consumer, std::uint16_t stream,
                          ReassemblyPublisher& publisher, StreamCounters& counters) {
  while (FramePtr frame = reassembler.pop(now_ns)) {
    if (probe) {
      probe->frame(*frame);
    } else {
      consumer.frame_received(stream, std::move(frame));
    }
  }
  publisher.publish(reassembler.counters(), counters);
}

}  // namespace hdstream
