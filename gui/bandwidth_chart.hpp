// The bandwidth chart behind a small interface, so the panel does not depend on which chart
// library draws it (Qt Charts today).
//   auto chart = make_bandwidth_chart(parent);  layout->addWidget(chart->widget());
//   chart->show_history(model.history(), feed_names, now_s, planned_mbps);
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "gui/panel_model.hpp"

class QWidget;

namespace hdstream {

class BandwidthChart {
 public:
  virtual ~BandwidthChart() = default;
  virtual QWidget* widget() = 0;
  // Redraws the last 60 s: aggregate, one series per feed, and the planned aggregate.
  virtual void show_history(const std::deque<HistoryPoint>& history,
                            const std::vector<std::string>& feed_names, double now_s,
                            double planned_mbps) = 0;
};

std::unique_ptr<BandwidthChart> make_bandwidth_chart(QWidget* parent);

}  // namespace hdstream
