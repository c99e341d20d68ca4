#include "display/video_wall.hpp"

#include <algorithm>

#include <fmt/format.h>

#include <QtGui/QScreen>

#include "display/layout.hpp"
#include "display/multiview_window.hpp"
#include "display/screen_window.hpp"
#include "display/screens.hpp"
#include "pipeline/media_sources.hpp"

namespace hdstream {

VideoWall::VideoWall(const MediaOutput& output, std::size_t streams, PanelWindow::Provider provider)
    : sinks_(streams) {
  for (const OutputTarget& target : output.targets) {
    if (target.kind != OutputTarget::Kind::program) continue;
    program_ = std::make_shared<Program>(streams);
    for (std::size_t stream = 0; stream < streams; ++stream) {
      sinks_[stream].push_back(Program::sink_for(program_, static_cast<std::uint16_t>(stream)));
    }
    QScreen* screen = screen_at(target.screen_for(0), "--output program:" + target.screen);
    screens_.push_back(std::make_unique<ScreenWindow>(screen, program_->view()));
  }
  std::vector<std::pair<ScreenWindow*, Rect>> windowed;
  for (const OutputTarget& target : output.targets) {
    if (target.kind == OutputTarget::Kind::display) {
      // A framed window per feed, side by side in a grid over the first screen: none hides
      // another, and the window manager may move them.
      QScreen* screen = screen_at(0, "--output display");
      const QRect g = screen->availableGeometry();
      const Rect area{g.x(), g.y(), g.width(), g.height()};
      const auto cells = tiles(grid_for(streams, area), area, 0);
      for (std::size_t stream = 0; stream < streams; ++stream) {
        auto view = std::make_shared<FeedView>(static_cast<std::uint16_t>(stream));
        screens_.push_back(std::make_unique<ScreenWindow>(screen, view));
        windowed.emplace_back(screens_.back().get(), cells[stream]);
        sinks_[stream].push_back(std::move(view));
      }
    } else if (target.kind == OutputTarget::Kind::screen) {
      for (std::size_t stream = 0; stream < streams; ++stream) {
        const auto id = static_cast<std::uint16_t>(stream);
        QScreen* screen = screen_at(target.screen_for(id), "--output screen:" + target.screen);
        auto view = std::make_shared<FeedView>(id);
        screens_.push_back(std::make_unique<ScreenWindow>(screen, view));
        sinks_[stream].push_back(std::move(view));
      }
    } else if (target.kind == OutputTarget::Kind::multiview) {
      std::optional<Grid> grid;
      if (!output.layout.empty()) {
        grid = parse_layout(output.layout);
        if (static_cast<std::size_t>(grid->cells()) < streams) {
          throw SpecError(fmt::format("--layout {}: {} tiles for {} feeds", output.layout,
                                      grid->cells(), streams));
        }
      }
      QScreen* screen = screen_at(target.screen_for(0), "--output multiview:" + target.screen);
      std::vector<std::shared_ptr<FeedView>> views;
      for (std::size_t stream = 0; stream < streams; ++stream) {
        views.push_back(std::make_shared<FeedView>(static_cast<std::uint16_t>(stream)));
        sinks_[stream].push_back(views.back());
      }
      multiview_ = std::make_unique<MultiviewWindow>(screen, grid, std::move(views), provider,
                                                     program_.get());
      if (target.beside_panel) {
        const QRect g = screen->availableGeometry();
        const ControlRoom room = control_room(Rect{g.x(), g.y(), g.width(), g.height()});
        multiview_area_ = room.multiview;
        panel_area_ = room.panel;
      }
    }
  }
  for (const auto& window : screens_) {
    const auto placed =
        std::ranges::find(windowed, window.get(), &std::pair<ScreenWindow*, Rect>::first);
    if (placed != windowed.end()) {
      window->show_in(placed->second);
    } else {
      window->show_on_screen();
    }
  }
  if (multiview_ && multiview_area_) {
    multiview_->show_in(*multiview_area_);
  } else if (multiview_) {
    multiview_->show_on_screen();
  }
}

VideoWall::~VideoWall() = default;

std::function<std::vector<std::shared_ptr<PictureSink>>(std::uint16_t, const Hello&)>
VideoWall::sink_factory() {
  return [this](std::uint16_t stream, const Hello&) {
    return stream < sinks_.size() ? sinks_[stream] : std::vector<std::shared_ptr<PictureSink>>{};
  };
}

std::function<bool(std::uint16_t stream)> VideoWall::heard() const {
  if (!program_) return {};
  return [program = program_](std::uint16_t stream) { return program->on_air() == stream; };
}

}  // namespace hdstream
