// The operator's panel: aggregate strip, bandwidth chart, one table row per feed with a
// traffic light, a protected feed's leg lights and, where the feed is decoded, its live picture.
// Pulls snapshots from `provider` on a 10 Hz timer (never per packet).
//   PanelWindow window("hdstream demo", [&] { return inputs(); });  window.show();
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <QtWidgets/QWidget>

#include "gui/bandwidth_chart.hpp"
#include "gui/panel_model.hpp"
#include "gui/picture_cell.hpp"

class QLabel;
class QTableWidget;
class QTimer;

namespace hdstream {

// Table columns, in order.
enum PanelColumn : int {
  kColumnLight = 0,
  kColumnPicture,  // shown once a row has a picture (a receiver that decodes)
  kColumnSound,    // shown once a row has sound: its meters and lip-sync
  kColumnFeed,
  kColumnState,
  kColumnLegs,  // shown once a row is a protected feed (two paths)
  kColumnMbps,
  kColumnJitter,
  kColumnDrops,
  kColumnRtt,
  kColumnRetransmits,
  kColumnLatency,
  kColumnFps,
  kColumnTransport,
  kColumnDestination,
  kColumnCount,
};

class PanelWindow : public QWidget {
 public:
  // Panel clock: seconds on a steady clock (the same one inputs' fresh_s use).
  using Provider = std::function<std::vector<PanelInput>(double now_s)>;

  PanelWindow(std::string title, Provider provider, PanelThresholds thresholds = {},
              QWidget* parent = nullptr);
  ~PanelWindow() override;

  // Pulls new inputs, updates the model and every widget. The timer calls it at ~10 Hz.
  void refresh();
  void start_timer(int interval_ms = 100);
  void set_on_close(std::function<void()> on_close) { on_close_ = std::move(on_close); }
  // Keys 0-9 and a click on a feed's row pick that feed (the program output's cut).
  void set_on_select(std::function<void(int stream)> on_select) {
    on_select_ = std::move(on_select);
  }
  // Where rows' pictures come from (gui/picture_cell.hpp); none: the panel shows no pictures.
  void set_pictures(PictureProvider pictures) { pictures_ = std::move(pictures); }

  static double now_s();

  // For tests: a refresh on a chosen panel clock, and what the panel shows.
  void refresh_at_for_test(double now_s) { refresh_at(now_s); }
  const PanelModel& model_for_test() const { return model_; }
  QTableWidget* table_for_test() const { return table_; }
  QLabel* aggregate_label_for_test() const { return aggregate_label_; }

 protected:
  void closeEvent(QCloseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;

 private:
  void refresh_at(double now_s);
  void show_rows();
  void show_light(int row, Health health, const std::string& tooltip);
  void show_picture(int row, const FeedRow& feed);
  void show_legs(int row, const FeedRow& feed);
  void show_sound(int row, const FeedRow& feed);
  void show_aggregate();

  Provider provider_;
  PanelModel model_;
  std::function<void()> on_close_;
  std::function<void(int)> on_select_;
  PictureProvider pictures_;
  std::unique_ptr<BandwidthChart> chart_;
  double charted_until_s_ = -2.0;  // time of the newest history point the chart shows
  std::size_t charted_feeds_ = 0;
  QTableWidget* table_ = nullptr;
  QLabel* aggregate_light_ = nullptr;
  QLabel* aggregate_label_ = nullptr;
  QTimer* timer_ = nullptr;
};

// "hdstream demo" panels use a dark Fusion palette: call once after QApplication exists.
void apply_panel_style();

}  // namespace hdstream
