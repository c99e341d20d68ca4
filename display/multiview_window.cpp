#include "display/multiview_window.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include <QtGui/QFontMetrics>
#include <QtGui/QKeyEvent>
#include <QtGui/QMouseEvent>
#include <QtGui/QPaintEvent>
#include <QtGui/QPainter>
#include <QtGui/QScreen>

#include "common/clock.hpp"
#include "common/log.hpp"
#include "display/repaint.hpp"
#include "gui/audio_meters.hpp"
#include "gui/palette.hpp"

namespace hdstream {
namespace {

constexpr int kGap = 4;

QRect qrect(const Rect& r) {
  return QRect(r.x, r.y, r.width, r.height);
}

}  // namespace

MultiviewWindow::MultiviewWindow(QScreen* screen, std::optional<Grid> grid,
                                 std::vector<std::shared_ptr<FeedView>> views,
                                 PanelWindow::Provider provider, Program* program)
    : PlacedWindow(screen, "hdstream multiview"),
      grid_(grid),
      views_(std::move(views)),
      provider_(std::move(provider)),
      program_(program) {
  // A new picture repaints its own tile: five feeds at 29.97 fps repainted the whole window
  // (every tile, label and meter) ~150 times a second.
  for (std::size_t i = 0; i < views_.size(); ++i) {
    views_[i]->attach(
        repaint_request(this, [i](MultiviewWindow& window) { window.repaint_tile(i); }));
  }
  // Labels, health and NO SIGNAL move without new pictures: refreshed 5 times a second.
  QObject::connect(&timer_, &QTimer::timeout, this, [this] { refresh(); });
  timer_.start(200);
}

MultiviewWindow::~MultiviewWindow() {
  for (const auto& view : views_) view->detach();
}

void MultiviewWindow::refresh() {
  if (provider_) {
    const double now_s = PanelWindow::now_s();
    const auto inputs = provider_(now_s);
    model_.update(inputs, now_s);
  }
  update();
}

void MultiviewWindow::layout_tiles() {
  const qreal ratio = devicePixelRatio();
  const Rect area{0, 0, static_cast<int>(width() * ratio), static_cast<int>(height() * ratio)};
  const auto cells = tiles(grid_.value_or(grid_for(views_.size(), area)), area, kGap);
  tiles_.clear();
  for (const Rect& cell : cells) {
    const int border = std::max(3, cell.height / 90);
    tiles_.push_back(Tile{cell, Rect{cell.x + border, cell.y + border, cell.width - 2 * border,
                                     cell.height - 2 * border}});
  }
  for (std::size_t i = 0; i < views_.size(); ++i) {
    if (i < tiles_.size()) {
      views_[i]->set_area(tiles_[i].inner.width, tiles_[i].inner.height);
    } else {
      views_[i]->set_area(0, 0);  // more feeds than the layout's cells: not shown
    }
  }
}

void MultiviewWindow::resizeEvent(QResizeEvent*) {
  layout_tiles();
}

void MultiviewWindow::keyPressEvent(QKeyEvent* event) {
  if (program_ && event->key() >= Qt::Key_0 && event->key() <= Qt::Key_9) {
    if (auto problem = program_->cut(event->key() - Qt::Key_0)) {
      logger("display")->warn("program: {}", *problem);
    }
    update();
  }
}

void MultiviewWindow::mousePressEvent(QMouseEvent* event) {
  if (!program_) return;
  const QPointF at = event->position() * devicePixelRatio();
  for (std::size_t i = 0; i < tiles_.size() && i < views_.size(); ++i) {
    if (qrect(tiles_[i].cell).contains(at.toPoint())) {
      program_->cut(views_[i]->stream());
      update();
      return;
    }
  }
}

const FeedRow* MultiviewWindow::row_for(std::uint16_t stream) const {
  for (const FeedRow& row : model_.rows()) {
    if (row.stream == stream) return &row;
  }
  return nullptr;
}

QRect MultiviewWindow::logical(const Rect& device) const {
  // The smallest window rectangle covering `device` (device pixels).
  const qreal ratio = devicePixelRatio();
  const int left = static_cast<int>(std::floor(device.x / ratio));
  const int top = static_cast<int>(std::floor(device.y / ratio));
  const int right = static_cast<int>(std::ceil((device.x + device.width) / ratio));
  const int bottom = static_cast<int>(std::ceil((device.y + device.height) / ratio));
  return QRect(left, top, right - left, bottom - top);
}

void MultiviewWindow::repaint_tile(std::size_t index) {
  if (index < tiles_.size()) update(logical(tiles_[index].cell));
}

void MultiviewWindow::paintEvent(QPaintEvent* event) {
  QPainter painter(this);
  // Only what was asked for: a tile with a new picture, or the whole window (the 5/s refresh,
  // a resize, an expose).
  const QRegion region = event->region();
  painter.setClipRegion(region);
  // Painted in device pixels: tiles and images were laid out in them.
  painter.scale(1 / devicePixelRatio(), 1 / devicePixelRatio());
  painter.fillRect(QRect(0, 0, static_cast<int>(width() * devicePixelRatio()),
                         static_cast<int>(height() * devicePixelRatio())),
                   QColor(panel_colors::kWindow));
  const std::int64_t now_ns = steady_clock_ns();
  for (std::size_t i = 0; i < views_.size() && i < tiles_.size(); ++i) {
    if (region.intersects(logical(tiles_[i].cell))) {
      paint_tile(painter, tiles_[i], *views_[i], now_ns);
    }
  }
}

void MultiviewWindow::paint_tile(QPainter& painter, const Tile& tile, const FeedView& view,
                                 std::int64_t now_ns) const {
  const FeedView::Latest latest = view.latest();
  const FeedRow* row = row_for(view.stream());
  const bool signal = latest.shown_ns && now_ns - *latest.shown_ns < kNoSignalAfterNs;

  // The health border: the panel's colours, grey when the feed is not (or no longer) there.
  const Health health = signal && row ? row->health : Health::stale;
  painter.fillRect(qrect(tile.cell), health_color(health));
  const QRect inner = qrect(tile.inner);
  painter.fillRect(inner, Qt::black);

  QFont font = painter.font();
  if (!signal) {
    font.setPixelSize(std::max(12, tile.inner.height / 8));
    font.setBold(true);
    painter.setFont(font);
    painter.fillRect(inner, QColor(0x20, 0x20, 0x20));
    painter.setPen(Qt::white);
    painter.drawText(inner, Qt::AlignCenter, "NO SIGNAL");
  } else {
    const Rect shown = fit(latest.image.width(), latest.image.height(), tile.inner);
    painter.drawImage(QPoint(shown.x, shown.y), latest.image);
  }

  // The label: a bar along the bottom of the tile, over the picture.
  const int bar_height = std::clamp(tile.inner.height / 11, 14, 36);
  const QRect bar(inner.x(), inner.bottom() + 1 - bar_height, inner.width(), bar_height);
  painter.fillRect(bar, QColor(0, 0, 0, 170));
  font.setPixelSize(bar_height * 2 / 3);
  font.setBold(false);
  painter.setFont(font);
  std::string text = fmt::format("#{}", view.stream());
  if (row) {
    if (!row->sender_host.empty() && row->sender_host != "?") text += "  " + row->sender_host;
    if (latest.source_width > 0) {
      text += fmt::format("  {}x{}", latest.source_width, latest.source_height);
    }
    text += fmt::format("  {:.1f} Mbps  drops {}", row->mbps, row->drops);
  }
  // The program tally: a red PGM box in the top-left corner of the feed on air.
  if (program_ && program_->on_air() == view.stream()) {
    const int size = std::clamp(tile.inner.height / 11, 14, 36);
    const QRect tally(inner.x(), inner.y(), size * 2, size);
    painter.fillRect(tally, QColor(panel_colors::kBad));
    font.setPixelSize(size * 2 / 3);
    font.setBold(true);
    painter.setFont(font);
    painter.setPen(Qt::white);
    painter.drawText(tally, Qt::AlignCenter, "PGM");
    font.setPixelSize(bar_height * 2 / 3);
    font.setBold(false);
    painter.setFont(font);
  }
  // The sound's meters up the tile's right edge, above the label, as a multiviewer shows them.
  const bool sound = signal && row && row->audio_channels > 0 && !row->sound.pairs.empty();
  if (sound) {
    const int pairs = static_cast<int>(row->sound.pairs.size());
    const int meter = std::clamp(tile.inner.width / 50, 4, 16);
    const int width = pairs * (meter + 2) + 2;
    const int height = std::max(0, tile.inner.height - bar_height - bar_height / 2);
    paint_audio_meters(painter, QRect(inner.right() + 1 - width, inner.y(), width, height),
                       row->sound, Qt::Vertical);
  }
  std::string alarms;
  if (signal && latest.flags.frozen) alarms += " FROZEN";
  if (signal && latest.flags.black) alarms += " BLACK";
  if (sound && row->sound.silent) alarms += " SILENT";
  const QRect text_area = bar.adjusted(bar_height / 3, 0, -bar_height / 3, 0);
  const QFontMetrics metrics(font);
  const QString alarm_text = QString::fromStdString(alarms).trimmed();
  const int alarm_width = alarm_text.isEmpty() ? 0 : metrics.horizontalAdvance(alarm_text) + 8;
  painter.setPen(Qt::white);
  painter.drawText(text_area.adjusted(0, 0, -alarm_width, 0), Qt::AlignVCenter | Qt::AlignLeft,
                   metrics.elidedText(QString::fromStdString(text), Qt::ElideRight,
                                      text_area.width() - alarm_width));
  if (!alarm_text.isEmpty()) {
    painter.setPen(QColor(panel_colors::kWarn));
    painter.drawText(text_area, Qt::AlignVCenter | Qt::AlignRight, alarm_text);
  }
}

}  // namespace hdstream
