// A time chart rendered to PNG by Qt (offscreen: no display needed): lines, dashed lines and
// bars over a shared time axis, with vertical dividers (phase boundaries) and shaded spans
// (severely errored seconds).
//   Chart chart{.title = "Information rate", .y_label = "Mbps"};
//   chart.series.push_back({.name = "received", .rgb = 0x1f77b4, .points = {{0, 270}, ...}});
//   std::vector<std::byte> png = render_chart_png(chart);
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace hdstream {

struct ChartSeries {
  enum class Style : std::uint8_t { line, dashed, bars };
  std::string name;
  std::uint32_t rgb = 0;  // 0xRRGGBB
  Style style = Style::line;
  std::vector<std::pair<double, double>> points;  // (t, value), t ascending
};

struct Chart {
  std::string title;
  std::string y_label;
  std::vector<ChartSeries> series;
  std::vector<double> dividers;                   // t of each vertical line
  std::vector<std::pair<double, double>> shaded;  // [t0, t1) spans
};

// PNG bytes; empty when Qt cannot render (the report then omits the plot).
std::vector<std::byte> render_chart_png(const Chart& chart, int width = 960, int height = 340);

}  // namespace hdstream
