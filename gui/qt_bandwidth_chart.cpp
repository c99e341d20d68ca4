// Qt Charts implementation of BandwidthChart: animations off, series replaced wholesale each
// refresh (one repaint per tick instead of one per point).
#include <algorithm>
#include <cmath>

#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLegendMarker>
#include <QtCharts/QLineSeries>
#include <QtCharts/QValueAxis>
#include <QtGui/QPen>

#include "gui/bandwidth_chart.hpp"
#include "gui/palette.hpp"

namespace hdstream {
namespace {

class QtBandwidthChart : public BandwidthChart {
 public:
  explicit QtBandwidthChart(QWidget* parent) : chart_(new QChart()) {
    chart_->setAnimationOptions(QChart::NoAnimation);
    chart_->setTheme(QChart::ChartThemeDark);
    chart_->setBackgroundBrush(QColor(panel_colors::kSurface));
    chart_->setBackgroundRoundness(0);
    chart_->setMargins(QMargins(4, 4, 4, 4));
    chart_->legend()->setAlignment(Qt::AlignRight);
    chart_->legend()->setLabelColor(QColor(panel_colors::kText));

    x_axis_ = new QValueAxis();
    x_axis_->setRange(-60, 0);
    x_axis_->setTickCount(7);
    x_axis_->setLabelFormat("%.0f s");
    x_axis_->setTitleText("last 60 s");
    y_axis_ = new QValueAxis();
    y_axis_->setLabelFormat("%.0f");
    y_axis_->setTitleText("Mbps");
    for (auto* axis : {x_axis_, y_axis_}) {
      axis->setGridLineColor(QColor(panel_colors::kGrid));
      axis->setLabelsColor(QColor(panel_colors::kMuted));
      axis->setTitleBrush(QColor(panel_colors::kMuted));
    }
    chart_->addAxis(x_axis_, Qt::AlignBottom);
    chart_->addAxis(y_axis_, Qt::AlignLeft);

    planned_ = add_series("planned", QPen(QColor(panel_colors::kMuted), 1.5, Qt::DashLine));
    aggregate_ = add_series("aggregate", QPen(QColor(panel_colors::kAccent), 3));

    view_ = new QChartView(chart_, parent);
    view_->setRenderHint(QPainter::Antialiasing, true);
    view_->setMinimumHeight(220);
  }

  QWidget* widget() override { return view_; }

  void show_history(const std::deque<HistoryPoint>& history,
                    const std::vector<std::string>& feed_names, double now_s,
                    double planned_mbps) override {
    while (feeds_.size() < feed_names.size()) {
      const QColor color = feed_color(feeds_.size());
      feeds_.push_back(
          add_series(QString::fromStdString(feed_names[feeds_.size()]), QPen(color, 1.2)));
    }
    // A feed's label grows its host's name once another host shows the same stream id.
    for (std::size_t i = 0; i < feed_names.size(); ++i) {
      const QString name = QString::fromStdString(feed_names[i]);
      if (feeds_[i]->name() != name) feeds_[i]->setName(name);
    }
    QList<QPointF> aggregate;
    std::vector<QList<QPointF>> feeds(feeds_.size());
    double peak = planned_mbps;
    aggregate.reserve(static_cast<qsizetype>(history.size()));
    for (const auto& point : history) {
      const double x = point.t - now_s;
      aggregate.append(QPointF(x, point.aggregate_mbps));
      peak = std::max(peak, point.aggregate_mbps);
      for (std::size_t i = 0; i < point.feed_mbps.size() && i < feeds.size(); ++i) {
        feeds[i].append(QPointF(x, point.feed_mbps[i]));
      }
    }
    aggregate_->replace(aggregate);
    for (std::size_t i = 0; i < feeds_.size(); ++i) feeds_[i]->replace(feeds[i]);
    planned_->replace(QList<QPointF>{QPointF(-60, planned_mbps), QPointF(0, planned_mbps)});
    planned_->setVisible(planned_mbps > 0);
    // A "nice" ceiling that changes rarely: the axis does not breathe with every sample.
    const double ceiling = nice_ceiling(std::max(peak * 1.12, 1.0));
    if (std::abs(ceiling - y_axis_->max()) > 1e-9) y_axis_->setRange(0, ceiling);
  }

 private:
  static double nice_ceiling(double value) {
    const double magnitude = std::pow(10.0, std::floor(std::log10(value)));
    for (double step : {1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0}) {
      if (step * magnitude >= value) return step * magnitude;
    }
    return 10 * magnitude;
  }

  QLineSeries* add_series(const QString& name, const QPen& pen) {
    auto* series = new QLineSeries();
    series->setName(name);
    series->setPen(pen);
    series->setUseOpenGL(false);
    chart_->addSeries(series);
    series->attachAxis(x_axis_);
    series->attachAxis(y_axis_);
    return series;
  }

  QChart* chart_;
  QChartView* view_ = nullptr;
  QValueAxis* x_axis_ = nullptr;
  QValueAxis* y_axis_ = nullptr;
  QLineSeries* planned_ = nullptr;
  QLineSeries* aggregate_ = nullptr;
  std::vector<QLineSeries*> feeds_;
};

}  // namespace

std::unique_ptr<BandwidthChart> make_bandwidth_chart(QWidget* parent) {
  return std::make_unique<QtBandwidthChart>(parent);
}

}  // namespace hdstream
