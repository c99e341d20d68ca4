// pipeline/thumbnails: what the panel and `hdstream monitor` show of each feed. A 1080 picture
// (left half red, right half blue, as the decoder hands it over: 8-bit 4:2:2 planes) becomes a
// 128x72 thumbnail with its colours where they were, at most a few a second, per feed; its JPEG
// is made once per thumbnail.
#include "pipeline/thumbnails.hpp"

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

namespace hdstream {
namespace {

using namespace std::chrono_literals;

// BT.709 limited range: red is Y 63 Cb 102 Cr 240, blue is Y 32 Cb 240 Cr 118.
class TwoColourPicture {
 public:
  TwoColourPicture(int width, int height) {
    for (auto& plane : planes_) plane.resize(static_cast<std::size_t>(width) * height);
    picture_.width = width;
    picture_.height = height;
    picture_.layout = PixelLayout::yuv422p8;
    picture_.plane_count = 3;
    const std::array<int, 3> row_bytes{width, width / 2, width / 2};
    for (int p = 0; p < 3; ++p) {
      picture_.data[p] = planes_[p].data();
      picture_.stride_bytes[p] = picture_.row_bytes[p] = row_bytes[p];
      picture_.rows[p] = height;
      for (int y = 0; y < height; ++y) {
        for (int x = 0; x < row_bytes[p]; ++x) {
          const bool left = x < row_bytes[p] / 2;
          const std::array<std::uint8_t, 3> red{63, 102, 240};
          const std::array<std::uint8_t, 3> blue{32, 240, 118};
          planes_[p][static_cast<std::size_t>(y) * row_bytes[p] + x] = left ? red[p] : blue[p];
        }
      }
    }
  }
  const Picture& picture() const { return picture_; }

 private:
  std::array<std::vector<std::uint8_t>, 3> planes_;
  Picture picture_;
};

std::array<int, 3> rgb_at(const Thumbnail& t, int x, int y) {
  const auto* p = &t.bgra[(static_cast<std::size_t>(y) * t.width + x) * 4];
  return {p[2], p[1], p[0]};
}

TEST(Thumbnails, FitTheBoxWithTheAspectKeptAndEvenSides) {
  const ThumbnailOptions box;  // 128 x 72
  EXPECT_EQ(Thumbnails::fitted(1920, 1080, box), std::pair(128, 72));
  EXPECT_EQ(Thumbnails::fitted(1280, 720, box), std::pair(128, 72));
  EXPECT_EQ(Thumbnails::fitted(720, 486, box), std::pair(96, 72));  // SD: 4:3, not 720:486
  EXPECT_EQ(Thumbnails::fitted(720, 576, box), std::pair(96, 72));
  EXPECT_EQ(Thumbnails::fitted(4096, 1080, box), std::pair(128, 32));
  // Degenerate pictures a hostile stream could describe never make a zero or odd side.
  EXPECT_EQ(Thumbnails::fitted(1, 100000, box), std::pair(2, 72));
  EXPECT_EQ(Thumbnails::fitted(0, 1080, box), std::pair(0, 0));
  EXPECT_EQ(Thumbnails::fitted(1920, -1, box), std::pair(0, 0));
}

TEST(Thumbnails, ADecodedPictureBecomesASmallOneWithItsColoursInPlace) {
  Thumbnails thumbnails(2);
  EXPECT_FALSE(thumbnails.latest(0)) << "no thumbnail before the first picture";
  EXPECT_FALSE(thumbnails.jpeg(0));
  const auto sinks = thumbnails.sink_factory()(0, Hello{});
  ASSERT_EQ(sinks.size(), 1u);
  const TwoColourPicture source(1920, 1080);
  sinks[0]->show(source.picture(), PictureFlags{});

  const auto thumbnail = thumbnails.latest(0);
  ASSERT_TRUE(thumbnail);
  EXPECT_EQ(thumbnail->seq, 1u);
  ASSERT_EQ(thumbnail->width, 128);
  ASSERT_EQ(thumbnail->height, 72);
  ASSERT_EQ(thumbnail->bgra.size(), 128u * 72 * 4);
  for (const int y : {0, 36, 71}) {
    const auto red = rgb_at(*thumbnail, 16, y);
    EXPECT_GT(red[0], 230) << y;
    EXPECT_LT(red[2], 25) << y;
    const auto blue = rgb_at(*thumbnail, 112, y);
    EXPECT_GT(blue[2], 230) << y;
    EXPECT_LT(blue[0], 25) << y;
  }
  EXPECT_FALSE(thumbnails.latest(1)) << "the other feed has shown nothing";
}

TEST(Thumbnails, AFeedMakesAtMostOneAPeriodAndEachFeedItsOwn) {
  Thumbnails thumbnails(2, ThumbnailOptions{.interval = 1h});
  const TwoColourPicture source(1280, 720);
  const auto feed0 = thumbnails.sink_factory()(0, Hello{});
  const auto feed1 = thumbnails.sink_factory()(1, Hello{});
  for (int i = 0; i < 30; ++i) feed0[0]->show(source.picture(), PictureFlags{});
  feed1[0]->show(source.picture(), PictureFlags{});
  ASSERT_TRUE(thumbnails.latest(0));
  EXPECT_EQ(thumbnails.latest(0)->seq, 1u) << "30 pictures within the period: one thumbnail";
  ASSERT_TRUE(thumbnails.latest(1));
  EXPECT_EQ(thumbnails.latest(1)->seq, 1u);

  Thumbnails every(1, ThumbnailOptions{.interval = 0ns});
  const auto sink = every.sink_factory()(0, Hello{});
  for (int i = 0; i < 5; ++i) sink[0]->show(source.picture(), PictureFlags{});
  EXPECT_EQ(every.latest(0)->seq, 5u);
}

TEST(Thumbnails, AStreamNotServedHasNoSinkAndNoThumbnail) {
  Thumbnails thumbnails(2);
  EXPECT_TRUE(thumbnails.sink_factory()(2, Hello{}).empty());
  EXPECT_TRUE(thumbnails.sink_factory()(65535, Hello{}).empty());
  EXPECT_FALSE(thumbnails.latest(2));
  EXPECT_FALSE(thumbnails.jpeg(65535));
}

TEST(Thumbnails, TheJpegIsMadeOncePerThumbnail) {
  Thumbnails thumbnails(1, ThumbnailOptions{.interval = 0ns});
  const auto sink = thumbnails.sink_factory()(0, Hello{});
  const TwoColourPicture wide(1920, 1080);
  sink[0]->show(wide.picture(), PictureFlags{});
  const auto first = thumbnails.jpeg(0);
  ASSERT_TRUE(first);
  ASSERT_GE(first->size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>((*first)[0]), 0xFF);
  EXPECT_EQ(static_cast<unsigned char>((*first)[1]), 0xD8);
  EXPECT_EQ(thumbnails.jpegs_made_for_test(), 1u);
  EXPECT_EQ(thumbnails.jpeg(0), first);
  EXPECT_EQ(thumbnails.jpeg(0), first);
  EXPECT_EQ(thumbnails.jpegs_made_for_test(), 1u) << "asked three times, made once";
  // A new picture of another shape: a new JPEG.
  const TwoColourPicture sd(720, 486);
  sink[0]->show(sd.picture(), PictureFlags{});
  const auto second = thumbnails.jpeg(0);
  ASSERT_TRUE(second);
  EXPECT_NE(*second, *first);
  EXPECT_EQ(thumbnails.jpegs_made_for_test(), 2u);
}

TEST(Thumbnails, ReadersNeverSeeAHalfMadeThumbnail) {
  // The decode worker makes thumbnails of two shapes, back to back; the panel and the HTTP
  // server read them at the same time. Every thumbnail read is whole: its size matches its
  // pixels, its colours are where they belong, and its JPEG is one.
  Thumbnails thumbnails(1, ThumbnailOptions{.interval = 0ns});
  const auto sink = thumbnails.sink_factory()(0, Hello{});
  const TwoColourPicture wide(1920, 1080);
  const TwoColourPicture sd(720, 486);
  std::atomic<bool> done{false};
  std::jthread worker([&] {  // joined even when an ASSERT below returns early
    for (int i = 0; i < 300; ++i) sink[0]->show((i % 2 ? sd : wide).picture(), PictureFlags{});
    done = true;
  });
  int reads = 0;
  while (!done) {
    if (const auto t = thumbnails.latest(0)) {
      ++reads;
      ASSERT_TRUE((t->width == 128 && t->height == 72) || (t->width == 96 && t->height == 72))
          << t->width << "x" << t->height;
      ASSERT_EQ(t->bgra.size(), static_cast<std::size_t>(t->width) * t->height * 4);
      ASSERT_GT(rgb_at(*t, 4, 36)[0], 230) << "left is red";
      ASSERT_GT(rgb_at(*t, t->width - 5, 36)[2], 230) << "right is blue";
    }
    if (const auto jpeg = thumbnails.jpeg(0)) {
      ASSERT_GE(jpeg->size(), 2u);
      ASSERT_EQ(static_cast<unsigned char>((*jpeg)[0]), 0xFF);
    }
  }
  worker.join();
  EXPECT_GT(reads, 0);
  EXPECT_EQ(thumbnails.latest(0)->seq, 300u);
}

}  // namespace
}  // namespace hdstream
