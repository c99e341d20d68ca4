// Ingests standard MPEG-TS over SRT (from ffmpeg, GStreamer srtsink, srt-live-transmit) and
// reports it like any hdstream feed: libavformat demuxes the TS read straight from the SRT
// socket, libavcodec decodes the video, and each decoded picture is one frame for the pipeline
// (bytes = its compressed size; jitter from arrival against the stream's own PTS clock). The
// TS's sound and recordings are its own (mux/TsFeedMedia): played, metered, recorded.
//   hdstream recv --listen :9000 --transport srt --mux ts   # then, e.g.:
//   ffmpeg -re -f lavfi -i testsrc2=size=1280x720:rate=30 -c:v mpeg2video -f mpegts
//   'srt://127.0.0.1:9000?mode=caller'
#pragma once

#include "pipeline/media_output.hpp"
#include "protocol/frame.hpp"
#include "transport/srt/srt_socket.hpp"
#include "transport/srt/srt_stream_listeners.hpp"
#include "transport/transport.hpp"

namespace hdstream {

class TsSrtReceiver : public ReceiverTransport {
 public:
  // `output`: where each session's sound plays and what records it (--audio-output, file:).
  TsSrtReceiver(ReceiverOptions options, MediaOutput output, StatsRegistry& stats,
                FrameConsumer& consumer);
  ~TsSrtReceiver() override;

  void start() override;
  Endpoint local_endpoint() const override;
  void stop() override;

 private:
  void run_session(std::uint16_t stream, SrtSocket& socket);  // on the stream's own thread

  ReceiverOptions options_;
  MediaOutput output_;
  StatsRegistry& stats_;
  FrameConsumer& consumer_;
  FramePool pool_;
  SrtStreamListeners listeners_;  // last: its threads are joined before the rest goes
};

}  // namespace hdstream
