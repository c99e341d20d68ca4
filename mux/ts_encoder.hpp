// Pictures in, standard MPEG-TS out, for `send --transport srt --mux ts`: libavcodec's MPEG-2
// 4:2:2 encoder (I-frames only, constant bit rate: no reordering delay, every picture stands
// alone) and libavformat's mpegts muxer writing into a custom AVIO, cut into 1316-byte messages
// (7 x 188, kSrtTsPayloadBytes): what ffmpeg, GStreamer and srt-live-transmit expect.
//   TsEncoder ts(feed, ts_video_rate_bps(std::nullopt), [&](std::span<const std::byte> m) {
//     return send_srt_message(socket, m, stopped); });
//   std::size_t bytes = ts.encode(decoder.decode(frame->data));  // throws MediaError
//   ts.finish();
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>

#include "media/picture.hpp"
#include "mux/ts_rate.hpp"
#include "protocol/handshake.hpp"
#include "transport/srt_socket.hpp"

struct AVCodecContext;
struct AVFormatContext;
struct AVFrame;
struct AVIOContext;
struct AVPacket;
struct SwsContext;

namespace hdstream {

class TsEncoder {
 public:
  // Hands one TS message (a multiple of 188 bytes, at most 1316) to the network; false when it
  // cannot be sent (the encoder then fails with MediaError and is done).
  using WriteMessage = std::function<bool(std::span<const std::byte>)>;

  // Throws MediaError when libavcodec/libavformat refuse the feed's size or rate. `threads`:
  // libavcodec slice threads, at least 2 (see the .cpp).
  TsEncoder(const FeedDescriptor& feed, std::uint64_t video_rate_bps, WriteMessage write,
            int threads = 2);
  ~TsEncoder();
  TsEncoder(const TsEncoder&) = delete;
  TsEncoder& operator=(const TsEncoder&) = delete;

  // Encodes one picture (any layout media/ decodes to, at the feed's size) and sends the TS
  // it makes. Returns the TS bytes handed to `write` by this call. Throws MediaError.
  std::size_t encode(const Picture& picture);
  // Drains the encoder, writes the trailer and the last partial message. Returns TS bytes sent.
  std::size_t finish();

  std::uint64_t bytes_written() const { return bytes_written_; }

 private:
  static int write_packet(void* opaque, std::uint8_t* data, int size);
  int take(const std::uint8_t* data, int size);
  void convert(const Picture& picture);
  void mux_packets();
  bool emit(std::span<const std::byte> message);
  void release();

  FeedDescriptor feed_;
  WriteMessage write_;
  AVCodecContext* encoder_ = nullptr;
  AVFormatContext* format_ = nullptr;
  AVIOContext* io_ = nullptr;
  AVFrame* frame_ = nullptr;
  AVPacket* packet_ = nullptr;
  SwsContext* scaler_ = nullptr;
  std::int64_t pts_ = 0;
  bool finished_ = false;
  bool write_failed_ = false;
  std::array<std::byte, kSrtTsPayloadBytes> pending_{};  // the message being filled
  std::size_t pending_bytes_ = 0;
  std::uint64_t bytes_written_ = 0;
};

}  // namespace hdstream
