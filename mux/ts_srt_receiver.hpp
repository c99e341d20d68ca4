// Ingests standard MPEG-TS over SRT (from ffmpeg, GStreamer srtsink, srt-live-transmit) and
// reports it like any hdstream feed: libavformat demuxes the TS read straight from the SRT
// socket, libavcodec decodes the video, and each decoded picture is one frame for the pipeline
// (bytes = its compressed size; jitter from arrival against the stream's own PTS clock).
//   hdstream recv --listen :9000 --transport srt --mux ts   # then, e.g.:
//   ffmpeg -re -f lavfi -i testsrc2=size=1280x720:rate=30 -c:v mpeg2video -f mpegts
//   'srt://127.0.0.1:9000?mode=caller'
#pragma once

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "protocol/frame.hpp"
#include "transport/srt_socket.hpp"
#include "transport/transport.hpp"

namespace hdstream {

class TsSrtReceiver : public ReceiverTransport {
 public:
  TsSrtReceiver(ReceiverOptions options, StatsRegistry& stats, FrameConsumer& consumer);
  ~TsSrtReceiver() override;

  void start() override;
  Endpoint local_endpoint() const override;
  void stop() override;

 private:
  void serve(std::uint16_t stream, SrtSocket listener);
  void run_session(std::uint16_t stream, SrtSocket& socket);

  ReceiverOptions options_;
  StatsRegistry& stats_;
  FrameConsumer& consumer_;
  FramePool pool_;
  std::vector<std::thread> threads_;
  std::uint16_t base_port_ = 0;
  std::atomic<bool> stopped_{false};
};

}  // namespace hdstream
