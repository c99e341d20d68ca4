// A small BGRA picture (a panel thumbnail) as a baseline JPEG, with libavcodec's MJPEG encoder:
// what `hdstream monitor` fetches from a receiver's /thumbnail and any browser shows.
//   JpegEncoder jpeg;
//   std::string bytes = jpeg.encode(bgra, 128, 72, 128 * 4);   // throws MediaError
#pragma once

#include <cstdint>
#include <string>

struct AVCodecContext;
struct AVFrame;
struct AVPacket;
struct SwsContext;

namespace hdstream {

class JpegEncoder {
 public:
  // quality: libavcodec's MJPEG quantiser scale, 2 (best) to 31; 4 keeps a thumbnail's edges.
  explicit JpegEncoder(int quality = 4) : quality_(quality) {}
  ~JpegEncoder();
  JpegEncoder(const JpegEncoder&) = delete;
  JpegEncoder& operator=(const JpegEncoder&) = delete;

  // `bgra`: width x height pixels, rows `stride` bytes apart; width and height even.
  std::string encode(const std::uint8_t* bgra, int width, int height, int stride);

 private:
  void open(int width, int height);
  void release();

  int quality_;
  int width_ = 0;
  int height_ = 0;
  std::int64_t pts_ = 0;
  AVCodecContext* context_ = nullptr;
  AVFrame* frame_ = nullptr;
  AVPacket* packet_ = nullptr;
  SwsContext* to_yuv_ = nullptr;
};

}  // namespace hdstream
