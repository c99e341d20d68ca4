// Renders a run's throughput over time (aggregate and per feed, with the planned rate) as PNG.
//   std::vector<std::byte> png = render_throughput_png(recorder.series(), 1350.0);
#pragma once

#include <cstddef>
#include <vector>

#include "report/link_recorder.hpp"

namespace hdstream {

// PNG bytes of an 960x480 chart; empty when Qt cannot render (the report then omits the plot).
std::vector<std::byte> render_throughput_png(const std::vector<ThroughputPoint>& series,
                                             double planned_mbps);

}  // namespace hdstream
