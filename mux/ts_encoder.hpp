// Pictures and their sound in, standard MPEG-TS out, for `send --transport srt --mux ts`:
// libavcodec's MPEG-2 4:2:2 encoder (I-frames only, constant bit rate: no reordering delay,
// every picture stands alone), the feed's sound as SMPTE 302M or AAC (mux/ts_audio_encoder.hpp)
// on the same clock, and libavformat's mpegts muxer writing into a custom AVIO, cut into
// 1316-byte messages (7 x 188, kSrtTsPayloadBytes): what ffmpeg, GStreamer and
// srt-live-transmit expect.
//   TsEncoder ts(feed, TsSettings{}, [&](std::span<const std::byte> m) {
//     return send_srt_message(socket, m, stopped); });
//   ts.encode_sound(block.pcm, sample_index);   // a feed with sound: first, each frame
//   std::size_t bytes = ts.encode(decoder.decode(block.picture), frame_index);  // MediaError
//   ts.finish();
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>

#include "media/picture.hpp"
#include "mux/ts_audio.hpp"
#include "mux/ts_audio_encoder.hpp"
#include "protocol/handshake.hpp"
#include "transport/srt/srt_socket.hpp"

struct AVCodecContext;
struct AVFormatContext;
struct AVFrame;
struct AVIOContext;
struct AVPacket;
struct AVRational;
struct SwsContext;

namespace hdstream {

class TsEncoder {
 public:
  // Hands one TS message (a multiple of 188 bytes, at most 1316) to the network; false when it
  // cannot be sent (the encoder then fails with MediaError and is done).
  using WriteMessage = std::function<bool(std::span<const std::byte>)>;

  // Throws MediaError when libavcodec/libavformat refuse the feed's size or rate. `threads`:
  // libavcodec slice threads, at least 2 (see the .cpp).
  TsEncoder(const FeedDescriptor& feed, const TsSettings& settings, WriteMessage write,
            int threads = 2);
  ~TsEncoder();
  TsEncoder(const TsEncoder&) = delete;
  TsEncoder& operator=(const TsEncoder&) = delete;

  // Encodes one picture (any layout media/ decodes to, at the feed's size), the stream's
  // `frame_index`th (its time: a frame missing leaves a gap, not a shift), and sends the TS it
  // makes. Returns the TS bytes handed to `write` by this call. Throws MediaError.
  std::size_t encode(const Picture& picture, std::int64_t frame_index);
  // A feed with sound: the frame's PCM (interleaved, the feed's format) whose first sample is
  // `first_sample` counted from the stream's first frame, muxed as it is encoded (the picture's
  // TS leaves with encode()). Throws MediaError.
  void encode_sound(std::span<const std::byte> pcm, std::uint64_t first_sample);
  // Drains the encoder, writes the trailer and the last partial message. Returns TS bytes sent.
  std::size_t finish();

  std::uint64_t bytes_written() const { return bytes_written_; }

 private:
  static int write_packet(void* opaque, std::uint8_t* data, int size);
  int take(const std::uint8_t* data, int size);
  void convert(const Picture& picture);
  void mux_packets();
  void mux(AVPacket& packet, int stream, AVRational from);
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
  std::unique_ptr<TsAudioEncoder> sound_;  // a feed with sound: stream 1
  bool finished_ = false;
  bool write_failed_ = false;
  std::array<std::byte, kSrtTsPayloadBytes> pending_{};  // the message being filled
  std::size_t pending_bytes_ = 0;
  std::uint64_t bytes_written_ = 0;
};

}  // namespace hdstream
