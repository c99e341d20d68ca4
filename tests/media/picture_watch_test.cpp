// media/picture_watch (frozen and black alarms) and media/picture_scaler (what the screens show),
// on pictures built here in each layout the decoder produces.
#include "media/picture_watch.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "media/picture_scaler.hpp"

namespace hdstream {
namespace {

constexpr std::int64_t kMs = 1'000'000;

// A width x height picture whose luma is `y` (8-bit scale) everywhere, chroma neutral.
class TestPicture {
 public:
  TestPicture(PixelLayout layout, int width, int height, int y) : layout_(layout) {
    picture_.width = width;
    picture_.height = height;
    picture_.layout = layout;
    if (layout == PixelLayout::uyvy422) {
      planes_.assign(1, std::vector<std::uint8_t>(static_cast<std::size_t>(width) * 2 * height));
      picture_.plane_count = 1;
      set_plane(0, width * 2, height);
    } else {
      const int bytes = layout == PixelLayout::yuv422p10 ? 2 : 1;
      planes_.assign(3, {});
      planes_[0].resize(static_cast<std::size_t>(width) * bytes * height);
      planes_[1].resize(static_cast<std::size_t>(width / 2) * bytes * height);
      planes_[2].resize(planes_[1].size());
      picture_.plane_count = 3;
      set_plane(0, width * bytes, height);
      set_plane(1, width / 2 * bytes, height);
      set_plane(2, width / 2 * bytes, height);
    }
    fill(y);
  }
  void fill(int y) {
    for (int row = 0; row < picture_.height; ++row) {
      for (int x = 0; x < picture_.width; ++x) set_luma(x, row, y);
    }
    if (layout_ == PixelLayout::uyvy422) {
      for (std::size_t i = 0; i < planes_[0].size(); i += 2) planes_[0][i] = 128;
    } else {
      for (int p = 1; p < 3; ++p) {
        if (layout_ == PixelLayout::yuv422p10) {
          for (std::size_t i = 0; i < planes_[p].size(); i += 2) {
            planes_[p][i] = 0x00;
            planes_[p][i + 1] = 0x02;  // 512: neutral
          }
        } else {
          std::fill(planes_[p].begin(), planes_[p].end(), 128);
        }
      }
    }
  }
  void set_luma(int x, int row, int y) {
    auto& plane = planes_[0];
    const std::size_t line = static_cast<std::size_t>(row) * picture_.stride_bytes[0];
    switch (layout_) {
      case PixelLayout::yuv422p8:
        plane[line + x] = static_cast<std::uint8_t>(y);
        break;
      case PixelLayout::yuv422p10:
        plane[line + 2 * x] = static_cast<std::uint8_t>((y << 2) & 0xff);
        plane[line + 2 * x + 1] = static_cast<std::uint8_t>(y >> 6);
        break;
      default:
        plane[line + 2 * x + 1] = static_cast<std::uint8_t>(y);
    }
  }
  const Picture& picture() const { return picture_; }

 private:
  void set_plane(int p, int row_bytes, int rows) {
    picture_.data[p] = planes_[p].data();
    picture_.stride_bytes[p] = row_bytes;
    picture_.row_bytes[p] = row_bytes;
    picture_.rows[p] = rows;
  }
  PixelLayout layout_;
  std::vector<std::vector<std::uint8_t>> planes_;
  Picture picture_;
};

class PictureWatchTest : public ::testing::TestWithParam<PixelLayout> {};

TEST_P(PictureWatchTest, BlackIsVideoBlackWithAtMostTwoPercentAbove) {
  TestPicture black(GetParam(), 320, 240, 16);
  EXPECT_TRUE(looks_black(black.picture()));
  TestPicture dark_grey(GetParam(), 320, 240, 38);  // 10% above black: still black
  EXPECT_TRUE(looks_black(dark_grey.picture()));
  TestPicture grey(GetParam(), 320, 240, 39);  // the first level above it
  EXPECT_FALSE(looks_black(grey.picture()));
  // A white caption over 5% of the sampled rows: not black.
  TestPicture caption(GetParam(), 320, 240, 16);
  for (int row = 0; row < 16; ++row) {
    for (int x = 0; x < 320; ++x) caption.set_luma(x, row, 235);
  }
  EXPECT_FALSE(looks_black(caption.picture()));
}

TEST_P(PictureWatchTest, WhiteIsTheSyncFlashNotBrightBars) {
  TestPicture white(GetParam(), 320, 240, 235);
  EXPECT_TRUE(looks_white(white.picture()));
  TestPicture floor(GetParam(), 320, 240, 202);  // 85% of the way to white: still the flash
  EXPECT_TRUE(looks_white(floor.picture()));
  TestPicture light_grey(GetParam(), 320, 240, 201);
  EXPECT_FALSE(looks_white(light_grey.picture()));
  // Bars' darker third over a white picture: no flash.
  TestPicture bars(GetParam(), 320, 240, 235);
  for (int row = 0; row < 240; ++row) {
    for (int x = 0; x < 107; ++x) bars.set_luma(x, row, 60);
  }
  EXPECT_FALSE(looks_white(bars.picture()));
  EXPECT_FALSE(looks_black(white.picture()));
}

TEST_P(PictureWatchTest, AlarmsRiseOnlyAfterTheirHoldTimeAndClearAtOnce) {
  PictureWatch watch;  // frozen after 2 s, black after 1 s
  TestPicture picture(GetParam(), 64, 48, 16);
  std::int64_t t = 5'000 * kMs;
  PictureFlags flags = watch.observe(picture.picture(), t);
  EXPECT_FALSE(flags.frozen);
  EXPECT_FALSE(flags.black);
  flags = watch.observe(picture.picture(), t + 999 * kMs);
  EXPECT_FALSE(flags.black);
  flags = watch.observe(picture.picture(), t + 1000 * kMs);
  EXPECT_TRUE(flags.black);
  EXPECT_FALSE(flags.frozen);
  flags = watch.observe(picture.picture(), t + 2000 * kMs);
  EXPECT_TRUE(flags.frozen);
  // One changed sample: no longer frozen; still black, as its hold continues.
  picture.set_luma(10, 10, 17);
  flags = watch.observe(picture.picture(), t + 2033 * kMs);
  EXPECT_FALSE(flags.frozen);
  EXPECT_TRUE(flags.black);
  // A bright picture clears black at once; the same picture again is frozen 2 s later.
  picture.fill(180);
  flags = watch.observe(picture.picture(), t + 2066 * kMs);
  EXPECT_FALSE(flags.black);
  EXPECT_FALSE(watch.observe(picture.picture(), t + 4065 * kMs).frozen);
  EXPECT_TRUE(watch.observe(picture.picture(), t + 4066 * kMs).frozen);
}

// With the frame's content fingerprint, frozen follows the fingerprint, not the planes: what
// reaches the decoder decides, and no pass over the picture is made.
TEST_P(PictureWatchTest, FrozenFollowsTheFramesFingerprintWhenItHasOne) {
  PictureWatch watch;
  TestPicture picture(GetParam(), 64, 48, 120);
  const std::int64_t t = 5'000 * kMs;
  EXPECT_FALSE(watch.observe(picture.picture(), t, 7).frozen);
  // The planes change but the fingerprint does not: frozen after 2 s.
  picture.fill(60);
  EXPECT_TRUE(watch.observe(picture.picture(), t + 2000 * kMs, 7).frozen);
  // A new fingerprint over the same planes: not frozen.
  EXPECT_FALSE(watch.observe(picture.picture(), t + 2033 * kMs, 8).frozen);
  EXPECT_FALSE(watch.observe(picture.picture(), t + 4032 * kMs, 8).frozen);
  EXPECT_TRUE(watch.observe(picture.picture(), t + 4033 * kMs, 8).frozen);
}

TEST_P(PictureWatchTest, TheScalerGivesFullRangeRgbOfTheLimitedRangePicture) {
  PictureScaler scaler;
  for (const auto& [luma, rgb] : {std::pair{16, 0}, std::pair{235, 255}, std::pair{126, 128}}) {
    TestPicture picture(GetParam(), 64, 48, luma);
    std::vector<std::uint8_t> out(32 * 24 * 4);
    scaler.scale(picture.picture(), 32, 24, out.data(), 32 * 4);
    for (std::size_t i = 0; i < out.size(); i += 4) {
      ASSERT_NEAR(out[i], rgb, 2) << "luma " << luma << " pixel " << i / 4;  // B
      ASSERT_NEAR(out[i + 1], rgb, 2);                                       // G
      ASSERT_NEAR(out[i + 2], rgb, 2);                                       // R
      ASSERT_EQ(out[i + 3], 255);                                            // opaque
    }
  }
  Picture invalid;
  std::vector<std::uint8_t> out(16);
  EXPECT_THROW(scaler.scale(invalid, 2, 2, out.data(), 8), std::exception);
}

TEST_P(PictureWatchTest, TheScalerWritesNotOneBytePastTheLastPixelAtAnyWidth) {
  // libswscale stores whole blocks of pixels; a width that is not a multiple of the block once
  // ran 16 bytes past a 106-pixel thumbnail's buffer. Every width from 2 to 70 and two screen
  // sizes, into a buffer of exactly width x height pixels followed by a canary.
  PictureScaler scaler;
  TestPicture picture(GetParam(), 1920, 1080, 180);
  constexpr std::uint8_t kCanary = 0x5A;
  constexpr std::size_t kCanaryBytes = 256;
  std::vector<int> widths{1920, 1366, 106};  // 106x72: where it was seen (then, SD's thumbnail)
  for (int width = 2; width <= 70; ++width) widths.push_back(width);
  for (const int width : widths) {
    const int height = width == 106 ? 72 : width > 70 ? 9 : 5;
    std::vector<std::uint8_t> out(static_cast<std::size_t>(width) * height * 4 + kCanaryBytes,
                                  kCanary);
    scaler.scale(picture.picture(), width, height, out.data(), width * 4);
    const auto canary = std::span(out).last(kCanaryBytes);
    EXPECT_TRUE(std::ranges::all_of(canary, [](std::uint8_t b) { return b == kCanary; }))
        << "the scaler wrote past a " << width << "x" << height << " buffer";
    EXPECT_EQ(out[out.size() - kCanaryBytes - 1], 255) << "the last pixel is opaque, " << width;
  }
}

INSTANTIATE_TEST_SUITE_P(Layouts, PictureWatchTest,
                         ::testing::Values(PixelLayout::yuv422p8, PixelLayout::yuv422p10,
                                           PixelLayout::uyvy422),
                         [](const ::testing::TestParamInfo<PixelLayout>& layout) -> std::string {
                           switch (layout.param) {
                             case PixelLayout::yuv422p8:
                               return "yuv422p8";
                             case PixelLayout::yuv422p10:
                               return "yuv422p10";
                             default:
                               return "uyvy422";
                           }
                         });

}  // namespace
}  // namespace hdstream
