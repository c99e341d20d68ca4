// Everything that needs FFmpeg's libav*, GStreamer or Qt, behind one interface. The hdstream
// binary links none of those libraries: it loads libhdstream-media.so (about 150 shared objects
// with its dependencies, ~30 ms of CPU) the first time a command needs a picture, a media
// source, MPEG-TS, a window or a report: a synthetic feed's sender and receiver, and `bench`,
// start in ~3 ms of CPU instead of ~32. Tests link the same implementation directly. What the
// layers below app/ need of it (pipeline/media_provider.hpp) they get from the registry the
// module registers itself with; app/ calls the rest here.
//   media_module().run_qt({.title = "hdstream recv", .panel = true, ...});
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "display/layout.hpp"
#include "gui/feed_pairing.hpp"
#include "pipeline/media_provider.hpp"
#include "pipeline/thumbnails.hpp"
#include "protocol/handshake.hpp"

namespace hdstream {

struct MediaOutput;       // pipeline/media_output.hpp
struct LinkReportInput;   // report/link_report.hpp
struct AcceptanceResult;  // acceptance/acceptance_result.hpp
class StatsPoller;        // telemetry/stats_poller.hpp

// The panel's rows at a moment of its clock (gui/panel_window.hpp's Provider).
using PanelProvider = std::function<std::vector<PanelInput>(double now_s)>;

// A receiver's decoded pictures beyond the files: thumbnails (the panel's Picture column and
// /thumbnail) and, for outputs on screens, the Qt windows. Made by open_pictures; keep it until
// the receivers' media has finished.
class Pictures {
 public:
  virtual ~Pictures() = default;
  // The latest picture of `stream`, as pixels (the panel) or a JPEG (/thumbnail); none before
  // its first picture.
  virtual std::optional<Thumbnail> latest_thumbnail(std::uint16_t stream) const = 0;
  virtual std::optional<std::string> thumbnail_jpeg(std::uint16_t stream) const = 0;
  // Cuts the program output to `feed` (an error line for a bad feed); empty when no output is a
  // program.
  virtual std::function<std::optional<std::string>(int feed)> program_cut() const = 0;
  // Some output shows pictures on screens (Qt must run).
  virtual bool on_screens() const = 0;
  // Where the operator's panel goes when a screen's layout keeps an area for it; none otherwise.
  virtual std::optional<Rect> panel_area() const { return std::nullopt; }
};

// One run of Qt on the calling (main) thread: the operator's panel and/or the screens of
// `pictures`, while `work` runs on a worker thread.
struct QtRun {
  std::string title;
  bool panel = false;  // the operator's panel (--gui)
  PanelProvider provider;
  const Pictures* pictures = nullptr;                // thumbnails in the panel; the screens
  std::shared_ptr<const StatsPoller> host_pictures;  // monitor: the hosts' own thumbnails
  std::function<void()> work;
  std::function<void()> request_stop;  // the last window closed
};

// The media module: what the layers below app/ need (MediaProvider) and what app/ itself calls.
class MediaModule : public MediaProvider {
 public:
  // What decoding the bars clip of `feed` costs this machine, in CPU seconds a frame (feed 0's
  // clip, made once if missing; media/decode_cost.hpp). Throws SpecError.
  virtual double bars_decode_seconds(const FeedDescriptor& feed) const = 0;
  // The thumbnails and, for outputs on screens, the QApplication and the windows; adds their
  // sinks to media.picture_sinks. Throws SpecError for an unknown screen or a bad layout.
  virtual std::shared_ptr<Pictures> open_pictures(MediaOutput& media, std::size_t streams,
                                                  PanelProvider provider) const = 0;
  virtual void run_qt(const QtRun& run) const = 0;
  // report/link_report.hpp. Throws std::runtime_error naming the file.
  virtual void write_link_report(const std::filesystem::path& path,
                                 const LinkReportInput& input) const = 0;
  // report/acceptance_report.hpp (.html, .md). Throws std::runtime_error naming the file.
  virtual void write_acceptance_report(const std::filesystem::path& path,
                                       const AcceptanceResult& result) const = 0;
};

// The media module: loaded on first use in the hdstream binary (media_module/loader.cpp), linked
// in elsewhere (media_module/linked.cpp); either registers it as the program's MediaProvider
// when the program starts. Throws MediaModuleError when it cannot be loaded.
const MediaModule& media_module();

}  // namespace hdstream
