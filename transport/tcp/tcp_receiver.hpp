// Serves N feeds on one TCP listen address: handshake, chunk intake straight into frame
// buffers, per-chunk XXH3 verification, reassembly, and hand-off to the pipeline.
//   auto rx = std::make_shared<TcpReceiver>(io, options, stats, consumer);  rx->start();
#pragma once

#include <memory>

#include "common/tcp_listener.hpp"
#include "transport/admission.hpp"
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

  ReceiverOptions options_;
  Admission admission_;  // what a HELLO may claim and reserve; the merge of protected feeds
  std::shared_ptr<TcpListener> listener_;  // the accept loop and the live sessions
};

}  // namespace hdstream
