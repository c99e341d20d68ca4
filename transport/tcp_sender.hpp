// One feed over one TCP connection: paced frames written with one gather write each.
//   auto sender = std::make_shared<TcpSender>(strand, options, counters);
#pragma once

#include <deque>
#include <memory>
#include <vector>

#include "common/async_event.hpp"
#include "protocol/packetizer.hpp"
#include "transport/transport.hpp"

namespace hdstream {

class TcpSender : public SenderTransport, public std::enable_shared_from_this<TcpSender> {
 public:
  TcpSender(asio::any_io_executor executor, SenderOptions options, StreamCounters& counters);

  awaitable<bool> open() override;
  SubmitResult submit(FramePtr frame) override;
  awaitable<void> wait_for_room() override;
  awaitable<bool> close(std::uint64_t frames_sent) override;
  void stop() override;
  awaitable<bool> reopen(std::uint64_t first_frame_seq) override;

 private:
  std::string label() const;
  awaitable<bool> handshake();
  awaitable<void> write_loop();
  awaitable<void> read_loop();
  awaitable<void> sample_tcp_info();
  void fail(std::string_view why);

  asio::any_io_executor executor_;
  SenderOptions options_;
  StreamCounters& counters_;
  tcp::socket socket_;
  std::deque<FramePtr> queue_;
  AsyncEvent queue_changed_;
  AsyncEvent room_;  // notified when a frame leaves the queue or the session ends
  AsyncEvent writer_done_;
  AsyncEvent reader_done_;
  bool closing_ = false;
  bool broken_ = false;
  bool stopped_ = false;
  std::uint64_t session_ = 0;  // bumped by reopen(): loops of an old session stop
  std::uint64_t bad_feedback_ = 0;
  std::vector<EncodedChunk> chunks_;
  std::vector<asio::const_buffer> gather_;
};

}  // namespace hdstream
