// libavcodec DNxHD encoder for raw sources (GStreamer pipelines): 8-bit 4:2:2 planar in, one
// VC-3 frame out per picture (intra-only, no delay).
//   VideoEncoder encoder(feed);                           // feed.codec == Codec::dnxhd
//   std::span<const std::byte> vc3 = encoder.encode(picture);
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "media/picture.hpp"
#include "protocol/handshake.hpp"

struct AVCodecContext;
struct AVFrame;
struct AVPacket;

namespace hdstream {

class VideoEncoder {
 public:
  // feed.bit_rate_bps picks the DNxHD profile (220 Mbps at 1080 29.97 is CID 1238).
  // Throws MediaError when libavcodec has no such profile.
  explicit VideoEncoder(const FeedDescriptor& feed, int threads = 1);
  ~VideoEncoder();
  VideoEncoder(const VideoEncoder&) = delete;
  VideoEncoder& operator=(const VideoEncoder&) = delete;

  // `picture` must be yuv422p8 at the feed's size. The bytes stay valid until the next call.
  std::span<const std::byte> encode(const Picture& picture);

 private:
  void release();

  FeedDescriptor feed_;
  AVCodecContext* context_ = nullptr;
  AVFrame* frame_ = nullptr;
  AVPacket* packet_ = nullptr;
  std::int64_t pts_ = 0;
};

}  // namespace hdstream
