#include "media/jpeg_encoder.hpp"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/frame.h>
#include <libswscale/swscale.h>
}

#include <fmt/format.h>

#include "media/media_error.hpp"

namespace hdstream {

JpegEncoder::~JpegEncoder() {
  release();
}

void JpegEncoder::release() {
  avcodec_free_context(&context_);
  av_frame_free(&frame_);
  av_packet_free(&packet_);
  sws_freeContext(to_yuv_);
  to_yuv_ = nullptr;
  width_ = height_ = 0;
  pts_ = 0;
}

void JpegEncoder::open(int width, int height) {
  release();
  const AVCodec* codec = avcodec_find_encoder(AV_CODEC_ID_MJPEG);
  if (!codec) throw MediaError("thumbnail: libavcodec has no MJPEG encoder");
  context_ = avcodec_alloc_context3(codec);
  frame_ = av_frame_alloc();
  packet_ = av_packet_alloc();
  if (!context_ || !frame_ || !packet_) throw MediaError("thumbnail: out of memory");
  context_->width = width;
  context_->height = height;
  context_->pix_fmt = AV_PIX_FMT_YUV420P;  // full-range 4:2:0, what every JPEG reader expects
  context_->color_range = AVCOL_RANGE_JPEG;
  context_->time_base = AVRational{1, 25};
  context_->flags |= AV_CODEC_FLAG_QSCALE;
  context_->global_quality = FF_QP2LAMBDA * quality_;
  if (avcodec_open2(context_, codec, nullptr) < 0) {
    throw MediaError(
        fmt::format("thumbnail: cannot open the MJPEG encoder at {}x{}", width, height));
  }
  frame_->format = AV_PIX_FMT_YUV420P;
  frame_->color_range = AVCOL_RANGE_JPEG;
  frame_->width = width;
  frame_->height = height;
  if (av_frame_get_buffer(frame_, 0) < 0) throw MediaError("thumbnail: out of memory");
  to_yuv_ = sws_getContext(width, height, AV_PIX_FMT_BGRA, width, height, AV_PIX_FMT_YUV420P,
                           SWS_POINT, nullptr, nullptr, nullptr);
  if (!to_yuv_) throw MediaError("thumbnail: libswscale cannot convert BGRA to YUV");
  // JPEG's own matrix (BT.601) and full range, as JFIF readers assume.
  const int* matrix = sws_getCoefficients(SWS_CS_ITU601);
  sws_setColorspaceDetails(to_yuv_, matrix, /*srcRange=*/1, matrix, /*dstRange=*/1, 0, 1 << 16,
                           1 << 16);
  width_ = width;
  height_ = height;
}

std::string JpegEncoder::encode(const std::uint8_t* bgra, int width, int height, int stride) {
  if (width <= 0 || height <= 0 || width % 2 != 0 || height % 2 != 0) {
    throw MediaError(fmt::format("thumbnail: cannot encode a {}x{} JPEG", width, height));
  }
  if (width != width_ || height != height_) open(width, height);
  if (av_frame_make_writable(frame_) < 0) throw MediaError("thumbnail: out of memory");
  const std::uint8_t* planes[4] = {bgra, nullptr, nullptr, nullptr};
  const int strides[4] = {stride, 0, 0, 0};
  sws_scale(to_yuv_, planes, strides, 0, height, frame_->data, frame_->linesize);
  frame_->quality = context_->global_quality;
  frame_->pts = pts_++;  // libavcodec refuses a pts that does not grow
  if (avcodec_send_frame(context_, frame_) < 0 || avcodec_receive_packet(context_, packet_) < 0) {
    release();  // the next picture opens a fresh encoder
    throw MediaError("thumbnail: the MJPEG encoder failed");
  }
  std::string bytes(reinterpret_cast<const char*>(packet_->data),
                    static_cast<std::size_t>(packet_->size));
  av_packet_unref(packet_);
  return bytes;
}

}  // namespace hdstream
