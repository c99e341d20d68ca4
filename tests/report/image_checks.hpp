// Checks of rendered images and written files shared by the report tests: a PNG decoded, a
// colour found where a chart drew it (antialiased over white).
#pragma once

#include <QColor>
#include <QImage>

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace hdstream::test {

inline QImage decode_png(const std::vector<std::byte>& png) {
  return QImage::fromData(reinterpret_cast<const uchar*>(png.data()), static_cast<int>(png.size()),
                          "PNG");
}

// Whether `pixel` is `colour` drawn over white with some coverage (lines are antialiased):
// every channel the colour darkens is darkened by the same fraction, at least 0.3.
inline bool tint_of(QColor pixel, QColor colour) {
  double low = 1, high = 0;
  for (auto [p, c] :
       {std::pair{pixel.red(), colour.red()}, std::pair{pixel.green(), colour.green()},
        std::pair{pixel.blue(), colour.blue()}}) {
    if (255 - c < 30) {
      if (255 - p > 30) return false;  // a channel the colour leaves white
      continue;
    }
    const double coverage = static_cast<double>(255 - p) / (255 - c);
    low = std::min(low, coverage);
    high = std::max(high, coverage);
  }
  return low >= 0.3 && high - low <= 0.15;
}

// Whether a pixel within `reach` rows of `y` in column `x` is a tint of `colour`.
inline bool colour_near(const QImage& image, int x, int y, QColor colour, int reach = 2) {
  for (int dy = -reach; dy <= reach; ++dy) {
    if (tint_of(image.pixelColor(x, y + dy), colour)) return true;
  }
  return false;
}

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace hdstream::test
