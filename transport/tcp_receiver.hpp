// Serves N feeds on one TCP listen address: handshake, chunk intake straight into frame
// buffers, per-chunk XXH3 verification, reassembly, and hand-off to the pipeline.
//   auto rx = std::make_shared<TcpReceiver>(io, options, stats, consumer);  rx->start();
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "common/tcp_listener.hpp"
#include "transport/frame_memory.hpp"
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

  // Claims a stream id for a session (refused if out of range or already carried); a capacity
  // probe claims one of max_probes_ instead, never the stream's slot.
  AckStatus claim(std::uint16_t stream_id, bool probe);
  void release(std::uint16_t stream_id, bool probe);

  ReceiverOptions options_;
  StatsRegistry& stats_;
  FrameConsumer& consumer_;
  std::shared_ptr<TcpListener> listener_;  // the accept loop and the live sessions
  FrameMemory memory_;                     // frame buffers of all sessions, within --max-memory
  std::size_t max_probes_;
  std::mutex mutex_;  // guards busy_ and probes_running_
  std::vector<bool> busy_;
  std::size_t probes_running_ = 0;
};

}  // namespace hdstream
