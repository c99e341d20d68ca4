// The receiver's pictures on screens: the windows that `--output screen:N`,
// `--output multiview[:N]` and `--output program[:N]` ask for, made on the GUI thread once the
// QApplication exists, and the per-feed sinks the decode workers feed them through.
//   QtApp qt;
//   VideoWall wall(media, streams, provider);     // throws SpecError (unknown screen, layout)
//   media.add_picture_sinks(wall.sink_factory());   // then start the receivers
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "display/feed_view.hpp"
#include "display/layout.hpp"
#include "display/program.hpp"
#include "gui/panel_window.hpp"
#include "pipeline/media_output.hpp"

namespace hdstream {

class ScreenWindow;
class MultiviewWindow;

class VideoWall {
 public:
  VideoWall(const MediaOutput& output, std::size_t streams, PanelWindow::Provider provider);
  ~VideoWall();
  VideoWall(const VideoWall&) = delete;
  VideoWall& operator=(const VideoWall&) = delete;

  // For MediaOutput::picture_sinks: a feed's views (its screen's, its tile's). Thread safe; the
  // wall must outlive the receivers' decode workers' use of it (their sinks detach on its end).
  std::function<std::vector<std::shared_ptr<PictureSink>>(std::uint16_t, const Hello&)>
  sink_factory();

  // Where the operator's panel goes when the multiview shares its screen (the demo); none when
  // the multiview has a screen of its own.
  std::optional<Rect> panel_area() const { return panel_area_; }

  // The program output, when there is one (`--output program`): cut it with program()->cut(K).
  Program* program() const { return program_.get(); }
  // Whose sound the device hears with a program output: the feed on air's alone (the program's
  // sound follows its cut); empty without one (every feed is heard).
  std::function<bool(std::uint16_t stream)> heard() const;

 private:
  std::vector<std::vector<std::shared_ptr<PictureSink>>> sinks_;  // by stream
  std::shared_ptr<Program> program_;
  std::vector<std::unique_ptr<ScreenWindow>> screens_;
  std::unique_ptr<MultiviewWindow> multiview_;
  std::optional<Rect> multiview_area_;
  std::optional<Rect> panel_area_;
};

}  // namespace hdstream
