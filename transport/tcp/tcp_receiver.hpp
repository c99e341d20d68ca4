// Serves N feeds on one TCP listen address: handshake, chunk intake straight into frame
// buffers, per-chunk XXH3 verification, reassembly, and hand-off to the pipeline.
//   auto rx = std::make_shared<TcpReceiver>(io, options, stats, consumer);  rx->start();
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "common/tcp_listener.hpp"
#include "transport/frame_memory.hpp"
#include "transport/leg_merge.hpp"
#include "transport/transport.hpp"

namespace hdstream {

class TcpReceiver : public ReceiverTransport, public std::enable_shared_from_this<TcpReceiver> {
 public:
  TcpReceiver(asio::io_context& context, ReceiverOptions options, StatsRegistry& stats,
              FrameConsumer& consumer);
  ~TcpReceiver() override;

  void start() override;
  Endpoint local_endpoint() const override;
  void stop() override;

 private:
  class Session;
  friend class Session;

  // Claims a stream id (or a leg of its protected feed) for a session, through the merge; a
  // capacity probe claims one of max_probes_ instead, never the stream's slot. `reason`: the
  // refusal's line.
  AckStatus claim(std::uint16_t stream_id, const Hello& hello, bool probe, std::string& reason);
  void release(std::uint16_t stream_id, std::uint8_t leg, bool probe);

  ReceiverOptions options_;
  StatsRegistry& stats_;
  LegMerge merge_;  // the feeds' consumer, merging the legs of protected feeds
  std::shared_ptr<TcpListener> listener_;  // the accept loop and the live sessions
  FrameMemory memory_;                     // frame buffers of all sessions, within --max-memory
  // Capacity probes (`check`) reserve from a budget of their own, of the same size: a stranger's
  // probes never take memory a feed needs.
  FrameMemory probe_memory_;
  FrameMemory& memory_for(bool probe) { return probe ? probe_memory_ : memory_; }
  std::size_t max_probes_;
  std::mutex mutex_;  // guards probes_running_
  std::size_t probes_running_ = 0;
};

}  // namespace hdstream
