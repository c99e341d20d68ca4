// One feed over SRT as the messages a MessageStage makes of its frames (`send --transport srt
// --mux ts`: mux/TsStage's MPEG-TS, for ffprobe/ffplay, srt-live-transmit, GStreamer or
// `hdstream recv --mux ts`). The SRT caller socket, passphrase, latency, buffer sizing and stats
// are those of `--transport srt` (transport/srt/srt_link); no hdstream HELLO/END is sent (a TS
// receiver knows nothing of them). The stage runs on the feed's own thread, never on the
// io_context; every blocking call there is bounded (100 ms, or one frame's stage), so stop() is
// too.
//   auto sender = std::make_shared<SrtMessageSender>(strand, options, std::move(stage), counters);
//   if (co_await sender->open()) { sender->submit(frame); ...; co_await sender->close(n); }
#pragma once

#include <memory>

#include "transport/feed_thread.hpp"
#include "transport/message_stage.hpp"
#include "transport/srt/srt_socket.hpp"
#include "transport/transport.hpp"

namespace hdstream {

class SrtMessageSender : public SenderTransport,
                         public std::enable_shared_from_this<SrtMessageSender> {
 public:
  // Connects to destination.port + stream_id.
  SrtMessageSender(asio::any_io_executor executor, SenderOptions options,
                   std::unique_ptr<MessageStage> stage, StreamCounters& counters);
  ~SrtMessageSender() override;

  awaitable<bool> open() override;
  SubmitResult submit(FramePtr frame) override;
  awaitable<bool> close(std::uint64_t frames_sent) override;
  void stop() override;

 private:
  void run();  // the feed's thread
  bool stream_frames(const bool& broken);
  void wait_until_played_out();
  void sample_stats(bool force = false);

  SenderOptions options_;
  std::unique_ptr<MessageStage> stage_;
  StreamCounters& counters_;
  Endpoint remote_;
  SrtSocket socket_;
  FeedThread feed_;
  std::chrono::steady_clock::time_point next_stats_;
};

}  // namespace hdstream
