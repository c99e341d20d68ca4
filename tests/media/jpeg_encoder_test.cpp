// media/jpeg_encoder: a thumbnail as a JPEG that a real decoder (libavcodec's MJPEG) reads back
// at its size and colours; sizes it cannot encode are refused in one line.
#include "media/jpeg_encoder.hpp"

#include <gtest/gtest.h>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/frame.h>
#include <libswscale/swscale.h>
}

#include <array>
#include <cstdint>
#include <vector>

#include "media/media_error.hpp"

namespace hdstream {
namespace {

// Decodes `jpeg` with libavcodec and converts it to BGRA; empty when it is not a JPEG.
struct Decoded {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> bgra;
  std::array<int, 3> pixel(int x, int y) const {
    const auto* p = &bgra[(static_cast<std::size_t>(y) * width + x) * 4];
    return {p[2], p[1], p[0]};  // r, g, b
  }
};

Decoded decode_jpeg(const std::string& jpeg) {
  Decoded out;
  const AVCodec* codec = avcodec_find_decoder(AV_CODEC_ID_MJPEG);
  AVCodecContext* context = avcodec_alloc_context3(codec);
  AVPacket* packet = av_packet_alloc();
  AVFrame* frame = av_frame_alloc();
  std::vector<std::uint8_t> data(jpeg.begin(), jpeg.end());
  data.resize(data.size() + AV_INPUT_BUFFER_PADDING_SIZE);
  packet->data = data.data();
  packet->size = static_cast<int>(jpeg.size());
  if (avcodec_open2(context, codec, nullptr) == 0 && avcodec_send_packet(context, packet) == 0 &&
      avcodec_receive_frame(context, frame) == 0) {
    out.width = frame->width;
    out.height = frame->height;
    // Room past the last row: libswscale stores whole blocks of pixels.
    out.bgra.resize(static_cast<std::size_t>(out.width) * out.height * 4 + 256);
    // The decoder says yuvj420p (full range); libswscale wants the range said apart.
    SwsContext* sws =
        sws_getContext(out.width, out.height, AV_PIX_FMT_YUV420P, out.width, out.height,
                       AV_PIX_FMT_BGRA, SWS_POINT, nullptr, nullptr, nullptr);
    const int* matrix = sws_getCoefficients(SWS_CS_ITU601);
    sws_setColorspaceDetails(sws, matrix, /*srcRange=*/1, matrix, /*dstRange=*/1, 0, 1 << 16,
                             1 << 16);
    std::uint8_t* planes[4] = {out.bgra.data()};
    int strides[4] = {out.width * 4};
    sws_scale(sws, frame->data, frame->linesize, 0, out.height, planes, strides);
    sws_freeContext(sws);
  }
  packet->data = nullptr;
  packet->size = 0;
  av_frame_free(&frame);
  av_packet_free(&packet);
  avcodec_free_context(&context);
  return out;
}

// Left half red, right half blue, BGRA.
std::vector<std::uint8_t> two_colours(int width, int height) {
  std::vector<std::uint8_t> bgra(static_cast<std::size_t>(width) * height * 4);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      auto* p = &bgra[(static_cast<std::size_t>(y) * width + x) * 4];
      const bool left = x < width / 2;
      p[0] = left ? 0 : 255;
      p[1] = 0;
      p[2] = left ? 255 : 0;
      p[3] = 255;
    }
  }
  return bgra;
}

TEST(JpegEncoder, AThumbnailDecodesBackAtItsSizeWithItsColours) {
  JpegEncoder encoder;
  for (const auto& [width, height] : {std::pair{128, 72}, std::pair{106, 72}}) {
    const auto bgra = two_colours(width, height);
    const std::string jpeg = encoder.encode(bgra.data(), width, height, width * 4);
    ASSERT_GE(jpeg.size(), 4u);
    EXPECT_EQ(static_cast<unsigned char>(jpeg[0]), 0xFF);  // SOI
    EXPECT_EQ(static_cast<unsigned char>(jpeg[1]), 0xD8);
    // A thumbnail a monitor fetches a few times a second per feed: a few KB, not a bitmap.
    EXPECT_LT(jpeg.size(), static_cast<std::size_t>(width * height)) << width << "x" << height;
    const Decoded decoded = decode_jpeg(jpeg);
    ASSERT_EQ(decoded.width, width);
    ASSERT_EQ(decoded.height, height);
    // Away from the edge between the colours (4:2:0 chroma and 8x8 blocks blur it).
    for (const int y : {4, height / 2, height - 5}) {
      const auto red = decoded.pixel(width / 4, y);
      EXPECT_GT(red[0], 220) << y;
      EXPECT_LT(red[2], 40) << y;
      const auto blue = decoded.pixel(3 * width / 4, y);
      EXPECT_GT(blue[2], 220) << y;
      EXPECT_LT(blue[0], 40) << y;
    }
  }
}

TEST(JpegEncoder, OneEncoderMakesJpegAfterJpegOfTheSameSize) {
  // A monitor asks for a feed's picture a few times a second, for hours.
  JpegEncoder encoder;
  const auto bgra = two_colours(128, 72);
  std::string first;
  for (int i = 0; i < 5; ++i) {
    const std::string jpeg = encoder.encode(bgra.data(), 128, 72, 128 * 4);
    if (i == 0) first = jpeg;
    EXPECT_EQ(jpeg, first) << "picture " << i;
  }
  EXPECT_EQ(decode_jpeg(first).width, 128);
}

TEST(JpegEncoder, SizesItCannotEncodeAreRefusedInOneLine) {
  JpegEncoder encoder;
  const auto bgra = two_colours(8, 8);
  for (const auto& [width, height] : {std::pair{0, 8}, std::pair{8, -2}, std::pair{7, 8}}) {
    try {
      encoder.encode(bgra.data(), width, height, 32);
      ADD_FAILURE() << width << "x" << height << " was encoded";
    } catch (const MediaError& error) {
      EXPECT_NE(std::string(error.what()).find("cannot encode"), std::string::npos) << error.what();
    }
  }
  // And the encoder still works after a refusal.
  EXPECT_FALSE(encoder.encode(bgra.data(), 8, 8, 32).empty());
}

}  // namespace
}  // namespace hdstream
