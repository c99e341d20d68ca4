// One feed over one TCP connection: paced frames written with one gather write each.
//   auto sender = std::make_shared<TcpSender>(strand, options, counters);
#pragma once

#include <deque>
#include <memory>
#include <vector>

#include "common/async_event.hpp"
#include "protocol/packetizer.hpp"
#include "transport/tcp_link.hpp"
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
  std::shared_ptr<TcpLink> new_link();
  awaitable<void> write_loop(std::shared_ptr<TcpLink> link);
  awaitable<void> read_loop(std::shared_ptr<TcpLink> link);
  awaitable<void> sample_tcp_info(std::shared_ptr<TcpLink> link);
  // Fails the session: link_'s first failure, reported once (logged unless stopped).
  void fail(std::string_view why) { link_->fail(std::string(why)); }
  void failed(const std::string& why);

  asio::any_io_executor executor_;
  SenderOptions options_;
  StreamCounters& counters_;
  std::shared_ptr<TcpLink> link_;  // this session's connection; a new one per reopen()
  std::deque<FramePtr> queue_;
  AsyncEvent queue_changed_;
  AsyncEvent room_;  // notified when a frame leaves the queue or the session ends
  AsyncEvent writer_done_;
  AsyncEvent reader_done_;
  bool closing_ = false;
  bool broken_ = false;
  bool stopped_ = false;
  std::vector<EncodedChunk> chunks_;
  std::vector<asio::const_buffer> gather_;
};

}  // namespace hdstream
