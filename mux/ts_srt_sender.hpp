// One feed as standard MPEG-TS over SRT (`send --transport srt --mux ts`), for ffprobe/ffplay,
// srt-live-transmit, GStreamer or `hdstream recv --mux ts`. None of our feed codecs has a TS
// stream type, so each frame is decoded (DNxHD) or unpacked (v210, UYVY) by media/'s
// VideoDecoder and re-encoded as I-frame-only MPEG-2 4:2:2 by TsEncoder. The SRT caller socket,
// passphrase, latency, buffer sizing and stats are those of `--transport srt`; no hdstream
// HELLO/END is sent (a TS receiver knows nothing of them). Decoding and encoding run on the
// feed's own thread, never on the io_context; every blocking call there is bounded (100 ms, or
// one picture's encode), so stop() is too.
//   auto sender = std::make_shared<TsSrtSender>(strand, options, ts_video_rate_bps(rate),
//   counters); if (co_await sender->open()) { sender->submit(frame); ...; co_await
//   sender->close(n); }
#pragma once

#include <memory>

#include "transport/feed_thread.hpp"
#include "transport/srt_socket.hpp"
#include "transport/transport.hpp"

namespace hdstream {

class TsEncoder;
class VideoDecoder;

class TsSrtSender : public SenderTransport, public std::enable_shared_from_this<TsSrtSender> {
 public:
  // Connects to destination.port + stream_id. video_rate_bps is the MPEG-2 rate
  // (ts_video_rate_bps()); the feed's codec must be video (dnxhd, v210 or uyvy).
  TsSrtSender(asio::any_io_executor executor, SenderOptions options, std::uint64_t video_rate_bps,
              StreamCounters& counters);
  ~TsSrtSender() override;

  awaitable<bool> open() override;
  SubmitResult submit(FramePtr frame) override;
  awaitable<bool> close(std::uint64_t frames_sent) override;
  void stop() override;

 private:
  void run();  // the feed's thread
  bool stream_frames(VideoDecoder& decoder, TsEncoder& encoder, const bool& broken);
  void wait_until_played_out();
  void sample_stats(bool force = false);

  SenderOptions options_;
  std::uint64_t video_rate_bps_;
  StreamCounters& counters_;
  Endpoint remote_;
  SrtSocket socket_;
  FeedThread feed_;
  std::chrono::steady_clock::time_point next_stats_;
};

}  // namespace hdstream
