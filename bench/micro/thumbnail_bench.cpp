// What the panel's thumbnails cost on the receiving host, against the decode they ride on: one
// 1080 DNxHD 220 frame decoded (libavcodec), and one thumbnail of it (libswscale to 128x72 BGRA)
// plus its JPEG (made only when a monitor asks). A feed makes at most 5 thumbnails a second and
// decodes 29.97 frames: bench/run.py reports thumbnail / decode per second of video.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "media/video_decoder.hpp"
#include "media/video_encoder.hpp"
#include "pipeline/thumbnails.hpp"

namespace hdstream {
namespace {

FeedDescriptor dnxhd_1080() {
  return FeedDescriptor{.codec = Codec::dnxhd,
                        .width = 1920,
                        .height = 1080,
                        .frame_rate_num = 30000,
                        .frame_rate_den = 1001,
                        .bit_rate_bps = 220'000'000};
}

// One encoded frame of a busy picture (a luma ramp with chroma bands): DNxHD's cost depends
// little on content, but a flat picture would flatter the scaler's cache use.
std::vector<std::byte> encoded_frame() {
  const int width = 1920;
  const int height = 1080;
  std::vector<std::uint8_t> y(static_cast<std::size_t>(width) * height);
  std::vector<std::uint8_t> u(static_cast<std::size_t>(width / 2) * height);
  std::vector<std::uint8_t> v(u.size());
  for (int row = 0; row < height; ++row) {
    for (int x = 0; x < width; ++x)
      y[row * width + x] = static_cast<std::uint8_t>(16 + (x + row) % 219);
    for (int x = 0; x < width / 2; ++x) {
      u[row * (width / 2) + x] = static_cast<std::uint8_t>(16 + (x * 7) % 224);
      v[row * (width / 2) + x] = static_cast<std::uint8_t>(16 + (row * 3) % 224);
    }
  }
  Picture picture;
  picture.width = width;
  picture.height = height;
  picture.layout = PixelLayout::yuv422p8;
  picture.plane_count = 3;
  picture.data[0] = y.data();
  picture.data[1] = u.data();
  picture.data[2] = v.data();
  picture.stride_bytes[0] = picture.row_bytes[0] = width;
  picture.stride_bytes[1] = picture.row_bytes[1] = width / 2;
  picture.stride_bytes[2] = picture.row_bytes[2] = width / 2;
  for (int p = 0; p < 3; ++p) picture.rows[p] = height;
  VideoEncoder encoder(dnxhd_1080());
  const auto bytes = encoder.encode(picture);
  return {bytes.begin(), bytes.end()};
}

void BM_Decode1080Dnxhd(benchmark::State& state) {
  const auto frame = encoded_frame();
  VideoDecoder decoder(dnxhd_1080());
  for (auto _ : state) benchmark::DoNotOptimize(decoder.decode(frame).data[0]);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Decode1080Dnxhd)->Unit(benchmark::kMillisecond);

void BM_ThumbnailOf1080(benchmark::State& state) {
  const auto frame = encoded_frame();
  VideoDecoder decoder(dnxhd_1080());
  const Picture& picture = decoder.decode(frame);
  Thumbnails thumbnails(1, ThumbnailOptions{.interval = std::chrono::nanoseconds(0)});
  const auto sinks = thumbnails.sink_factory()(0, Hello{});
  for (auto _ : state) sinks[0]->show(picture, PictureFlags{});
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ThumbnailOf1080)->Unit(benchmark::kMillisecond);

void BM_ThumbnailJpeg(benchmark::State& state) {
  const auto frame = encoded_frame();
  VideoDecoder decoder(dnxhd_1080());
  const Picture& picture = decoder.decode(frame);
  Thumbnails thumbnails(1, ThumbnailOptions{.interval = std::chrono::nanoseconds(0)});
  const auto sinks = thumbnails.sink_factory()(0, Hello{});
  for (auto _ : state) {
    state.PauseTiming();
    sinks[0]->show(picture, PictureFlags{});  // a new thumbnail: the JPEG is not cached
    state.ResumeTiming();
    benchmark::DoNotOptimize(thumbnails.jpeg(0));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ThumbnailJpeg)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace hdstream
