#include "gui/panel_window.hpp"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>
#include <QtCore/QTimer>
#include <QtGui/QCloseEvent>
#include <QtGui/QFont>
#include <QtGui/QKeyEvent>
#include <QtGui/QPainter>
#include <QtGui/QPixmap>
#include <QtWidgets/QApplication>
#include <QtWidgets/QHBoxLayout>
#include <QtWidgets/QHeaderView>
#include <QtWidgets/QLabel>
#include <QtWidgets/QStyleFactory>
#include <QtWidgets/QTableWidget>
#include <QtWidgets/QVBoxLayout>

#include "common/clock.hpp"
#include "gui/audio_meters.hpp"
#include "gui/palette.hpp"

namespace hdstream {
namespace {

QIcon light_icon(Health health) {
  // Cached: building a pixmap per cell per tick would be the panel's main cost.
  static std::map<Health, QIcon> cache;
  auto found = cache.find(health);
  if (found != cache.end()) return found->second;
  QPixmap pixmap(28, 28);
  pixmap.fill(Qt::transparent);
  QPainter painter(&pixmap);
  painter.setRenderHint(QPainter::Antialiasing);
  const QColor color = health_color(health);
  painter.setPen(QPen(color.darker(160), 2));
  painter.setBrush(color);
  painter.drawEllipse(QRectF(3, 3, 22, 22));
  painter.end();
  return cache.emplace(health, QIcon(pixmap)).first->second;
}

// A protected feed's legs: "A" and "B", each beside its light (green: up; red: down while the
// feed runs; grey otherwise). Cached by what it shows, as the health lights are.
QPixmap legs_pixmap(const FeedRow& row) {
  static std::map<int, QPixmap> cache;
  int key = row.state == StreamState::running ? 1 : 0;
  for (const LegRow& leg : row.legs) key |= (leg.up ? 2 : 4) << (2 * leg.leg);
  if (auto found = cache.find(key); found != cache.end()) return found->second;
  constexpr int kLegWidth = 30;
  constexpr int kHeight = 16;
  QPixmap pixmap(kLegWidth * 2, kHeight);
  pixmap.fill(Qt::transparent);
  QPainter painter(&pixmap);
  painter.setRenderHint(QPainter::Antialiasing);
  QFont font = painter.font();
  font.setPixelSize(12);
  font.setBold(true);
  painter.setFont(font);
  for (const LegRow& leg : row.legs) {
    const int x = kLegWidth * (leg.leg & 1);
    painter.setPen(QColor(panel_colors::kText));
    painter.drawText(QRect(x, 0, 12, kHeight), Qt::AlignCenter, leg.leg == 0 ? "A" : "B");
    const QColor color = leg.up                              ? health_color(Health::good)
                         : row.state == StreamState::running ? health_color(Health::bad)
                                                             : health_color(Health::stale);
    painter.setPen(QPen(color.darker(160), 1.5));
    painter.setBrush(color);
    painter.drawEllipse(QRectF(x + 13, 2, 12, 12));
  }
  painter.end();
  return cache.emplace(key, pixmap).first->second;
}

QString qs(const std::string& text) {
  return QString::fromStdString(text);
}

std::string state_text(const FeedRow& row) {
  if (row.health == Health::stale) return "stale";
  return std::string(to_string(row.state));
}

}  // namespace

double PanelWindow::now_s() {
  return steady_seconds();
}

PanelWindow::PanelWindow(std::string title, Provider provider, PanelThresholds thresholds,
                         QWidget* parent)
    : QWidget(parent), provider_(std::move(provider)), model_(thresholds) {
  setWindowTitle(qs(title));
  setAttribute(Qt::WA_DeleteOnClose, false);
  resize(1280, 760);
  setAutoFillBackground(true);
  QPalette pal = palette();
  pal.setColor(QPalette::Window, QColor(panel_colors::kWindow));
  pal.setColor(QPalette::WindowText, QColor(panel_colors::kText));
  setPalette(pal);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(12, 10, 12, 10);
  layout->setSpacing(8);

  // Aggregate strip: the one line an operator reads from across the room.
  auto* strip = new QHBoxLayout();
  aggregate_light_ = new QLabel(this);
  aggregate_light_->setFixedSize(28, 28);
  aggregate_label_ = new QLabel(this);
  QFont big = aggregate_label_->font();
  big.setPointSizeF(big.pointSizeF() * 1.45);
  big.setBold(true);
  aggregate_label_->setFont(big);
  auto* heading = new QLabel(qs(title), this);
  QFont heading_font = heading->font();
  heading_font.setPointSizeF(heading_font.pointSizeF() * 1.1);
  heading->setFont(heading_font);
  heading->setStyleSheet(QString("color: %1;").arg(panel_colors::kMuted));
  // The strip never widens the window: beside the demo's multiview the panel gets 5/12 of the
  // screen, and a label's text would otherwise push the window past the screen's edge.
  aggregate_label_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  aggregate_label_->setWordWrap(true);  // narrow: two lines rather than a cut
  heading->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  heading->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
  strip->addWidget(aggregate_light_);
  strip->addWidget(aggregate_label_, 3);
  strip->addWidget(heading, 1);
  layout->addLayout(strip);

  chart_ = make_bandwidth_chart(this);
  layout->addWidget(chart_->widget(), 3);

  table_ = new QTableWidget(0, kColumnCount, this);
  table_->setHorizontalHeaderLabels({"", "Picture", "Sound", "Feed", "State", "Legs", "Mbps",
                                     "Jitter", "Drops", "RTT", "Retx", "Latency", "FPS",
                                     "Transport", "Destination"});
  table_->verticalHeader()->setVisible(false);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionMode(QAbstractItemView::NoSelection);
  table_->setFocusPolicy(Qt::NoFocus);
  table_->setShowGrid(false);
  table_->setAlternatingRowColors(true);
  table_->setIconSize(QSize(16, 16));
  table_->verticalHeader()->setDefaultSectionSize(26);
  QObject::connect(table_, &QTableWidget::cellClicked, this, [this](int row, int) {
    if (on_select_ && row >= 0 && static_cast<std::size_t>(row) < model_.rows().size()) {
      on_select_(model_.rows()[static_cast<std::size_t>(row)].stream);
    }
  });
  auto* header = table_->horizontalHeader();
  header->setSectionResizeMode(QHeaderView::ResizeToContents);
  header->setSectionResizeMode(kColumnDestination, QHeaderView::Stretch);
  table_->setColumnHidden(kColumnPicture, true);  // until a row has a picture
  table_->setColumnHidden(kColumnSound, true);    // until a row has sound
  table_->setColumnHidden(kColumnLegs, true);     // until a row is a protected feed
  header->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
  table_->setStyleSheet(
      QString("QTableWidget { background: %1; alternate-background-color: %2;"
              " color: %3; border: none; }"
              "QHeaderView::section { background: %2; color: %4; border: none;"
              " padding: 4px 8px; font-weight: bold; }")
          .arg(panel_colors::kSurface, "#222731", panel_colors::kText, panel_colors::kMuted));
  layout->addWidget(table_, 2);

  timer_ = new QTimer(this);
  QObject::connect(timer_, &QTimer::timeout, this, [this] { refresh(); });
}

PanelWindow::~PanelWindow() = default;

void PanelWindow::start_timer(int interval_ms) {
  timer_->start(interval_ms);
}

void PanelWindow::refresh() {
  refresh_at(now_s());
}

void PanelWindow::refresh_at(double now) {
  const auto inputs = provider_(now);
  model_.update(inputs, now);
  show_rows();
  show_aggregate();
  // The table follows every tick; the chart only when its history gained a point (every
  // history_step_s): redrawing 17 antialiased series ten times a second is most of the panel's
  // CPU at 16 feeds, and between points it would only slide.
  const auto& history = model_.history();
  const double newest = history.empty() ? -1.0 : history.back().t;
  if (newest == charted_until_s_ && model_.rows().size() == charted_feeds_) return;
  charted_until_s_ = newest;
  charted_feeds_ = model_.rows().size();
  std::vector<std::string> names;
  for (const auto& row : model_.rows()) names.push_back(row.label);
  chart_->show_history(history, names, now, model_.aggregate().planned_mbps);
}

// Every item change repaints its cell (text shaping included): only what changed is set, so a
// 16-feed panel costs little more than a 5-feed one at 10 Hz.
void PanelWindow::show_light(int row, Health health, const std::string& tooltip) {
  auto* item = table_->item(row, kColumnLight);
  if (item->data(Qt::UserRole).toInt() != static_cast<int>(health) + 1) {
    item->setData(Qt::UserRole, static_cast<int>(health) + 1);
    item->setIcon(light_icon(health));
  }
  const QString tip = qs(tooltip);
  if (item->toolTip() != tip) item->setToolTip(tip);
}

// A cell's pixmap is redrawn only when its thumbnail or its alarms changed: the key is the
// thumbnail's sequence number and the alarm bits.
void PanelWindow::show_picture(int row, const FeedRow& feed) {
  auto* item = table_->item(row, kColumnPicture);
  const std::optional<PanelPicture> picture =
      feed.has_picture && pictures_ ? pictures_(feed) : std::nullopt;
  const qulonglong key = !feed.has_picture
                             ? 0
                             : ((picture ? picture->seq : 0) << 3 | (feed.no_signal ? 4u : 0u) |
                                (feed.frozen ? 2u : 0u) | (feed.black ? 1u : 0u)) +
                                   1;
  if (item->data(Qt::UserRole).toULongLong() == key && !item->data(Qt::UserRole).isNull()) return;
  item->setData(Qt::UserRole, key);
  item->setData(Qt::DecorationRole,
                feed.has_picture ? QVariant(picture_cell(picture ? &picture->image : nullptr, feed))
                                 : QVariant());
}

// The leg lights, the protected count and skew; each leg's figures in the tooltip. Set only
// when they changed, as every other cell.
void PanelWindow::show_legs(int row, const FeedRow& feed) {
  auto* item = table_->item(row, kColumnLegs);
  const QString text = qs(format_protection(feed));
  if (item->text() != text) item->setText(text);
  std::string tip;
  if (feed.is_protected) {
    tip = fmt::format("{} of 2 legs up", feed.legs_up);
    for (const LegRow& leg : feed.legs) tip += "\n" + format_leg(leg);
  }
  const QString tooltip = qs(tip);
  if (item->toolTip() != tooltip) item->setToolTip(tooltip);
  const QString lights =
      qs(format_legs(feed) + (feed.state == StreamState::running ? "" : " idle"));
  if (item->data(Qt::UserRole).toString() == lights) return;
  item->setData(Qt::UserRole, lights);
  item->setData(Qt::DecorationRole, feed.is_protected ? QVariant(legs_pixmap(feed)) : QVariant());
}

// The meters are redrawn only when what they show changed: levels to a tenth of a dB (what the
// tooltip says), the alarm, the signal.
void PanelWindow::show_sound(int row, const FeedRow& feed) {
  auto* item = table_->item(row, kColumnSound);
  const bool sound = feed.has_picture && feed.audio_channels > 0;
  const QString text = qs(sound ? format_av_offset(feed) : "");
  if (item->text() != text) item->setText(text);
  const QString tip = qs(sound ? format_sound_levels(feed) : "");
  if (item->data(Qt::UserRole).toString() == tip && item->toolTip() == tip) return;
  item->setData(Qt::UserRole, tip);
  item->setToolTip(tip);
  item->setData(Qt::DecorationRole, sound ? QVariant(sound_cell(feed)) : QVariant());
}

void PanelWindow::show_rows() {
  const auto& rows = model_.rows();
  const int count = static_cast<int>(rows.size()) + 1;  // + the aggregate row
  if (table_->rowCount() != count) {
    table_->setRowCount(count);
    for (int r = 0; r < count; ++r) {
      for (int c = 0; c < kColumnCount; ++c) {
        if (table_->item(r, c) == nullptr) {
          auto* item = new QTableWidgetItem();
          const bool numeric = c == kColumnMbps || c == kColumnJitter || c == kColumnRtt ||
                               c == kColumnRetransmits || c == kColumnFps;
          item->setTextAlignment((numeric ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter);
          table_->setItem(r, c, item);
        }
      }
    }
  }
  auto set = [&](int r, int c, const std::string& text) {
    auto* item = table_->item(r, c);
    const QString value = qs(text);
    if (item->text() != value) item->setText(value);  // unchanged cells cost no repaint
  };
  const QColor text_color(panel_colors::kText);
  const QColor stale_color(panel_colors::kStale);
  for (int r = 0; r < static_cast<int>(rows.size()); ++r) {
    const FeedRow& row = rows[static_cast<std::size_t>(r)];
    const bool stale = row.health == Health::stale;
    show_light(r, row.health,
               std::string(to_string(row.health)) +
                   (row.health_reason.empty() ? "" : ": " + row.health_reason));
    show_picture(r, row);
    show_sound(r, row);
    set(r, kColumnFeed, row.label);
    set(r, kColumnState,
        state_text(row) + (row.health_reason.empty() || row.health == Health::good ||
                                   row.health_reason == state_text(row)
                               ? ""
                               : " \u00b7 " + row.health_reason));
    show_legs(r, row);
    set(r, kColumnMbps, fmt::format("{:.1f}", row.mbps));
    set(r, kColumnJitter, row.has_jitter ? fmt::format("{:.2f} ms", row.jitter_ms) : "\u2014");
    set(r, kColumnDrops, format_drops(row));
    set(r, kColumnRtt, row.has_rtt ? fmt::format("{:.2f} ms", row.rtt_ms) : "\u2014");
    set(r, kColumnRetransmits, fmt::format("{}", row.retransmits));
    set(r, kColumnLatency, format_latency(row));
    set(r, kColumnFps, row.has_fps ? fmt::format("{:.2f}", row.fps) : "\u2014");
    set(r, kColumnTransport, row.transport + (row.far_end ? " (far end)" : ""));
    set(r, kColumnDestination, row.destination + "   " + row.hosts);
    for (int c = 0; c < kColumnCount; ++c) {
      auto* item = table_->item(r, c);
      const QColor want = stale ? stale_color : text_color;
      if (item->foreground().color() != want) item->setForeground(want);
    }
    auto* drops_item = table_->item(r, kColumnDrops);
    if (!stale && row.drops > 0) {
      const QColor want = health_color(row.health == Health::good ? Health::warn : row.health);
      if (drops_item->foreground().color() != want) drops_item->setForeground(want);
    }
  }
  // The picture column, and rows tall enough for it, once a row has a picture.
  const bool pictures = pictures_ && std::ranges::any_of(rows, &FeedRow::has_picture);
  if (table_->isColumnHidden(kColumnPicture) == pictures) {
    table_->setColumnHidden(kColumnPicture, !pictures);
    table_->verticalHeader()->setDefaultSectionSize(pictures ? kPictureCellHeight + 6 : 26);
    // Rows three times as tall: the table takes the room the chart had.
    static_cast<QVBoxLayout*>(layout())->setStretchFactor(table_, pictures ? 6 : 2);
  }
  // The sound column once a feed has sound.
  const bool sound = std::ranges::any_of(
      rows, [](const FeedRow& row) { return row.has_picture && row.audio_channels > 0; });
  if (table_->isColumnHidden(kColumnSound) == sound) table_->setColumnHidden(kColumnSound, !sound);
  // The legs column once a feed is protected: plain feeds' panels stay exactly as they were.
  const bool protection = std::ranges::any_of(rows, &FeedRow::is_protected);
  if (table_->isColumnHidden(kColumnLegs) == protection) {
    table_->setColumnHidden(kColumnLegs, !protection);
  }
  // The aggregate row, bold, last.
  const int a = static_cast<int>(rows.size());
  // Feed rows tall enough for a picture when there are pictures; the aggregate row is text.
  // Set every time: a feed that appears turns the old aggregate row into a feed row.
  const int feed_height = table_->isColumnHidden(kColumnPicture) ? 26 : kPictureCellHeight + 6;
  for (int r = 0; r < a; ++r) {
    if (table_->rowHeight(r) != feed_height) table_->setRowHeight(r, feed_height);
  }
  if (table_->rowHeight(a) != 26) table_->setRowHeight(a, 26);
  const AggregateRow& agg = model_.aggregate();
  show_light(a, agg.health, std::string(to_string(agg.health)));
  set(a, kColumnFeed, "All");
  set(a, kColumnState, fmt::format("{}/{} healthy", agg.healthy, agg.feeds));
  set(a, kColumnMbps, fmt::format("{:.1f}", agg.mbps));
  set(a, kColumnDrops,
      fmt::format("{} / {} ({:.2f}%)", agg.drops, agg.frames + agg.drops,
                  agg.frames + agg.drops ? 100.0 * static_cast<double>(agg.drops) /
                                               static_cast<double>(agg.frames + agg.drops)
                                         : 0.0));
  set(a, kColumnDestination, fmt::format("planned {:.1f} Mbps", agg.planned_mbps));
  for (int c = 0; c < kColumnCount; ++c) {
    auto* item = table_->item(a, c);
    QFont font = item->font();
    if (!font.bold()) {
      font.setBold(true);
      item->setFont(font);
    }
  }
}

void PanelWindow::show_aggregate() {
  const AggregateRow& agg = model_.aggregate();
  aggregate_light_->setPixmap(light_icon(agg.health).pixmap(28, 28));
  const double percent = agg.planned_mbps > 0 ? 100.0 * agg.mbps / agg.planned_mbps : 0.0;
  aggregate_label_->setText(qs(fmt::format(
      "{:.1f} Mbps of {:.0f} planned ({:.0f}%)   \u00b7   drops {}   \u00b7   {}/{} feeds healthy",
      agg.mbps, agg.planned_mbps, percent, agg.drops, agg.healthy, agg.feeds)));
}

void PanelWindow::keyPressEvent(QKeyEvent* event) {
  if (on_select_ && event->key() >= Qt::Key_0 && event->key() <= Qt::Key_9) {
    on_select_(event->key() - Qt::Key_0);
    return;
  }
  QWidget::keyPressEvent(event);
}

void PanelWindow::closeEvent(QCloseEvent* event) {
  timer_->stop();
  if (on_close_) on_close_();
  event->accept();
}

void apply_panel_style() {
  QApplication::setStyle(QStyleFactory::create("Fusion"));
  QPalette dark;
  dark.setColor(QPalette::Window, QColor(panel_colors::kWindow));
  dark.setColor(QPalette::WindowText, QColor(panel_colors::kText));
  dark.setColor(QPalette::Base, QColor(panel_colors::kSurface));
  dark.setColor(QPalette::AlternateBase, QColor("#222731"));
  dark.setColor(QPalette::Text, QColor(panel_colors::kText));
  dark.setColor(QPalette::Button, QColor(panel_colors::kSurface));
  dark.setColor(QPalette::ButtonText, QColor(panel_colors::kText));
  dark.setColor(QPalette::ToolTipBase, QColor(panel_colors::kSurface));
  dark.setColor(QPalette::ToolTipText, QColor(panel_colors::kText));
  QApplication::setPalette(dark);
}

}  // namespace hdstream
