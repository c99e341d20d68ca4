// gui/audio_meters: the dB scale and its zones, and the meters as painted, pixel by pixel, into
// an offscreen image (the panel and the multiview draw with the same function).
#include "gui/audio_meters.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include <QtGui/QGuiApplication>
#include <QtGui/QImage>

#include "gui/palette.hpp"

namespace hdstream {
namespace {

TEST(AudioMeters, ExtentIsLinearInDbFromTheFloorToFullScale) {
  EXPECT_EQ(meter_extent(kMeterFloorDbfs, 120), 0);
  EXPECT_EQ(meter_extent(-90, 120), 0);
  EXPECT_EQ(meter_extent(-std::numeric_limits<double>::infinity(), 120), 0);
  EXPECT_EQ(meter_extent(std::nan(""), 120), 0);
  EXPECT_EQ(meter_extent(-30, 120), 60);
  EXPECT_EQ(meter_extent(-18, 120), 84);
  EXPECT_EQ(meter_extent(0, 120), 120);
  EXPECT_EQ(meter_extent(3, 120), 120);  // over full scale: pinned, never past the meter
}

TEST(AudioMeters, ZonesAreGreenToAlignmentAmberToMinusSixRedAbove) {
  EXPECT_EQ(meter_color(-40), QColor(panel_colors::kGood));
  EXPECT_EQ(meter_color(-18), QColor(panel_colors::kGood));
  EXPECT_EQ(meter_color(-17.9), QColor(panel_colors::kWarn));
  EXPECT_EQ(meter_color(-6), QColor(panel_colors::kWarn));
  EXPECT_EQ(meter_color(-5.9), QColor(panel_colors::kBad));
}

class AudioMetersPainted : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    static int argc = 1;
    static char name[] = "audio_meters_test";
    static char* argv[] = {name, nullptr};
    app_ = new QGuiApplication(argc, argv);
  }
  static void TearDownTestSuite() {
    delete app_;
    app_ = nullptr;
  }
  // One vertical pair in a 40 x 124 image: its track is x 2..37, y 2..121 (120 pixels).
  static QImage paint(const SoundLevels& levels, Qt::Orientation orientation, QSize size) {
    QImage image(size, QImage::Format_RGB32);
    image.fill(Qt::black);
    QPainter painter(&image);
    paint_audio_meters(painter, QRect(QPoint(0, 0), size), levels, orientation);
    return image;
  }
  // The pixel of a vertical track at `dbfs` (just below the level's edge).
  static QColor at_level(const QImage& image, int x, double dbfs) {
    return image.pixelColor(x, 121 - meter_extent(dbfs, 120) + 1);
  }
  static bool near(const QColor& a, const QColor& b, int tolerance = 2) {
    return std::abs(a.red() - b.red()) <= tolerance &&
           std::abs(a.green() - b.green()) <= tolerance &&
           std::abs(a.blue() - b.blue()) <= tolerance;
  }
  // `color` at the lighter part's alpha over the track.
  static QColor blended(const char* color) {
    const QColor over(color), under(panel_colors::kSurface);
    auto mix = [](int a, int b) { return (a * 110 + b * (255 - 110) + 127) / 255; };
    return QColor(mix(over.red(), under.red()), mix(over.green(), under.green()),
                  mix(over.blue(), under.blue()));
  }
  static QGuiApplication* app_;
};
QGuiApplication* AudioMetersPainted::app_ = nullptr;

TEST_F(AudioMetersPainted, RmsSolidPeakLighterHoldAWhiteTickTheRestTheTrack) {
  SoundLevels levels;
  levels.pairs.push_back(PairLevels{.peak_dbfs = -9, .rms_dbfs = -30, .hold_dbfs = -3});
  const QImage image = paint(levels, Qt::Vertical, QSize(40, 124));
  const int x = 20;
  EXPECT_EQ(at_level(image, x, -50), QColor(panel_colors::kGood)) << "RMS, green zone";
  EXPECT_EQ(at_level(image, x, -31), QColor(panel_colors::kGood));
  EXPECT_TRUE(near(at_level(image, x, -25), blended(panel_colors::kGood)))
      << "between RMS and peak: lighter";
  EXPECT_TRUE(near(at_level(image, x, -12), blended(panel_colors::kWarn)))
      << "the peak in the amber zone";
  EXPECT_EQ(at_level(image, x, -7), QColor(panel_colors::kSurface)) << "above the peak: track";
  EXPECT_EQ(image.pixelColor(x, 121 - meter_extent(-3, 120) + 1), QColor(Qt::white)) << "hold";
  EXPECT_EQ(at_level(image, x, -1), QColor(panel_colors::kSurface));
  EXPECT_EQ(image.pixelColor(0, 60), QColor(0, 0, 0)) << "the backing, between bars";
}

TEST_F(AudioMetersPainted, OverFullScaleIsRedToTheTopAndPairsAreIndependent) {
  SoundLevels levels;
  levels.pairs.push_back(PairLevels{.peak_dbfs = 0, .rms_dbfs = -3, .hold_dbfs = 0});
  levels.pairs.push_back(PairLevels{});  // silence: an empty track
  // Two pairs across 40 pixels: bars of 17, at x 2..18 and 21..37.
  const QImage image = paint(levels, Qt::Vertical, QSize(40, 124));
  EXPECT_EQ(at_level(image, 10, -4), QColor(panel_colors::kBad));
  EXPECT_EQ(at_level(image, 10, -40), QColor(panel_colors::kGood));
  EXPECT_EQ(image.pixelColor(10, 3), QColor(Qt::white)) << "held at full scale: the top";
  EXPECT_EQ(at_level(image, 30, -40), QColor(panel_colors::kSurface));
  EXPECT_EQ(at_level(image, 30, -59), QColor(panel_colors::kSurface));
}

TEST_F(AudioMetersPainted, HorizontalMetersGrowRightwardsAndSilenceIsFramedRed) {
  SoundLevels levels;
  levels.pairs.push_back(PairLevels{.peak_dbfs = -30, .rms_dbfs = -30, .hold_dbfs = -30});
  levels.silent = true;
  // One pair in 124 x 24: its track is x 2..121, y 2..21.
  const QImage image = paint(levels, Qt::Horizontal, QSize(124, 24));
  EXPECT_EQ(image.pixelColor(2 + meter_extent(-45, 120), 12), QColor(panel_colors::kGood));
  EXPECT_EQ(image.pixelColor(2 + meter_extent(-15, 120), 12), QColor(panel_colors::kSurface));
  EXPECT_EQ(image.pixelColor(1, 12), QColor(panel_colors::kBad)) << "the silence alarm's frame";
  EXPECT_EQ(image.pixelColor(60, 1), QColor(panel_colors::kBad));
}

TEST_F(AudioMetersPainted, NoPairsPaintNothing) {
  const QImage image = paint(SoundLevels{}, Qt::Vertical, QSize(20, 20));
  EXPECT_EQ(image.pixelColor(10, 10), QColor(Qt::black));
}

}  // namespace
}  // namespace hdstream
