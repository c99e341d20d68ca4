// One libavcodec decoder for one feed (DNxHD, v210 or UYVY), chosen from the HELLO descriptor.
//   VideoDecoder decoder(hello.feed);                       // throws MediaError
//   const Picture& picture = decoder.decode(frame->data);   // throws MediaError on bad data
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "media/picture.hpp"
#include "protocol/handshake.hpp"

struct AVBufferPool;
struct AVCodecContext;
struct AVFrame;
struct AVPacket;

namespace hdstream {

class VideoDecoder {
 public:
  // threads: libavcodec slice/frame threads for this decoder (1 suits one decoder per feed).
  explicit VideoDecoder(const FeedDescriptor& feed, int threads = 1);
  ~VideoDecoder();
  VideoDecoder(const VideoDecoder&) = delete;
  VideoDecoder& operator=(const VideoDecoder&) = delete;

  // Decodes one whole frame. The picture stays valid until the next call. A frame that does not
  // decode, or decodes to another size or pixel format than the feed announced, throws
  // MediaError; the decoder stays usable for the next frame.
  //
  // `owner`, when given, keeps `bitstream`'s bytes alive and unchanged: an uncompressed
  // picture (UYVY, v210) is then decoded from them in place, held until the next call, instead
  // of from a padded copy (its decoder reads no byte past the picture; a DNxHD decoder may).
  // A UYVY picture is then those very bytes: lend only bytes followed by readable slack
  // (kFrameSlackBytes, protocol/frame.hpp) for the scalers that read past a picture's end.
  const Picture& decode(std::span<const std::byte> bitstream,
                        std::shared_ptr<const void> owner = nullptr);

  const FeedDescriptor& feed() const { return feed_; }

 private:
  void open(int idct_algo);
  void choose_idct_after_first_picture();
  void release();
  void copy_into_packet(std::span<const std::byte> bitstream);
  void lend_to_packet(std::span<const std::byte> bitstream, std::shared_ptr<const void> owner);

  FeedDescriptor feed_;
  int threads_ = 1;
  bool idct_chosen_ = false;
  std::optional<int> reopen_with_;  // an IDCT to reopen with before the next frame
  AVCodecContext* context_ = nullptr;
  AVFrame* frame_ = nullptr;
  AVPacket* packet_ = nullptr;
  // Packets are refcounted buffers, padded as libavcodec requires, from this pool (or the
  // caller's bytes, see decode()): handed a packet without a buffer, libavcodec copies it once
  // more, and a raw (UYVY) picture can reference its packet's buffer instead of copying it.
  AVBufferPool* packet_pool_ = nullptr;
  std::size_t packet_pool_bytes_ = 0;
  Picture picture_;
};

}  // namespace hdstream
