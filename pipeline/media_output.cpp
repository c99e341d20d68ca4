#include "pipeline/media_output.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/display_env.hpp"
#include "pipeline/media_sources.hpp"

namespace hdstream {
namespace {

// "2" -> 2; anything but a small non-negative number -> nullopt.
std::optional<int> screen_number(const std::string& text) {
  if (text.empty() || text.front() == '-') return std::nullopt;  // from_chars takes "-0"
  int number = -1;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (error != std::errc() || end != text.data() + text.size() || number < 0 || number > 63) {
    return std::nullopt;
  }
  return number;
}

OutputTarget parse_target(const std::string& spec, std::size_t streams, bool fullscreen) {
  OutputTarget target;
  if (spec == "null") {
    target.kind = OutputTarget::Kind::null;
  } else if (spec == "display" && fullscreen) {
    // Every feed fullscreen: each on its own screen, as screen:{stream} puts them.
    target.kind = OutputTarget::Kind::screen;
    target.screen = "{stream}";
  } else if (spec == "display") {
    target.kind = OutputTarget::Kind::display;
  } else if (spec.starts_with("file:")) {
    target.kind = OutputTarget::Kind::file;
    target.file_pattern = spec.substr(5);
    if (target.file_pattern.empty()) {
      throw SpecError("--output file: needs a pattern, e.g. file:rec/feed{stream}.mov");
    }
    if (streams > 1 && target.file_pattern.find("{stream}") == std::string::npos) {
      throw SpecError(
          fmt::format("--output '{}': {} streams would share one file; put {{stream}} "
                      "in the pattern",
                      spec, streams));
    }
    const auto parent =
        std::filesystem::path(substitute_stream(target.file_pattern, 0)).parent_path();
    if (!parent.empty() && !std::filesystem::is_directory(parent)) {
      throw SpecError(
          fmt::format("--output '{}': directory '{}' does not exist", spec, parent.string()));
    }
    const auto extension = std::filesystem::path(target.file_pattern).extension().string();
    if (extension != ".mov" && extension != ".mkv" && extension != ".mxf") {
      throw SpecError(
          fmt::format("--output '{}': name the file .mov, .mkv or .mxf (DNxHD: any; "
                      "v210/UYVY: .mov or .mkv)",
                      spec));
    }
  } else if (spec.starts_with("screen:")) {
    target.kind = OutputTarget::Kind::screen;
    target.screen = spec.substr(7);
    if (streams > 1 && target.screen.find("{stream}") == std::string::npos) {
      throw SpecError(fmt::format(
          "--output '{}': {} feeds would share one screen; use screen:{{stream}} (feed i on "
          "screen i) or multiview",
          spec, streams));
    }
    for (std::size_t stream = 0; stream < std::max<std::size_t>(streams, 1); ++stream) {
      if (!screen_number(substitute_stream(target.screen, static_cast<std::uint16_t>(stream)))) {
        throw SpecError(fmt::format(
            "--output '{}': expected screen:N (a screen number) or screen:{{stream}}", spec));
      }
    }
  } else if (spec == "multiview" || spec.starts_with("multiview:") || spec == "program" ||
             spec.starts_with("program:")) {
    const std::string name = spec.substr(0, spec.find(':'));
    target.kind = name == "program" ? OutputTarget::Kind::program : OutputTarget::Kind::multiview;
    target.screen = spec == name ? "0" : spec.substr(name.size() + 1);
    if (!screen_number(target.screen)) {
      throw SpecError(
          fmt::format("--output '{}': expected {} or {}:N (a screen number)", spec, name, name));
    }
  } else {
    throw SpecError(fmt::format(
        "--output '{}': expected null, display, file:PATTERN, screen:N, multiview[:N] or "
        "program[:N]",
        spec));
  }
  return target;
}

}  // namespace

int OutputTarget::screen_for(std::uint16_t stream) const {
  return screen_number(substitute_stream(screen, stream)).value_or(0);
}

std::string to_string(OutputTarget::Kind kind) {
  switch (kind) {
    case OutputTarget::Kind::null:
      return "null";
    case OutputTarget::Kind::display:
      return "display";
    case OutputTarget::Kind::file:
      return "file";
    case OutputTarget::Kind::screen:
      return "screen";
    case OutputTarget::Kind::multiview:
      return "multiview";
    case OutputTarget::Kind::program:
      return "program";
  }
  return "?";
}

void MediaOutput::add_picture_sinks(SinkFactory factory) {
  if (!picture_sinks) {
    picture_sinks = std::move(factory);
    return;
  }
  picture_sinks = [first = std::move(picture_sinks), then = std::move(factory)](
                      std::uint16_t stream, const Hello& hello) {
    auto sinks = first(stream, hello);
    for (auto& sink : then(stream, hello)) sinks.push_back(std::move(sink));
    return sinks;
  };
}

const OutputTarget* MediaOutput::find(OutputTarget::Kind kind) const {
  auto it = std::ranges::find(targets, kind, &OutputTarget::kind);
  return it == targets.end() ? nullptr : &*it;
}

std::size_t MediaOutput::record_queue_for(const FeedDescriptor& feed) const {
  const double frame_bytes =
      static_cast<double>(feed.bit_rate_bps) / 8 / std::max(feed.frames_per_second(), 1.0);
  if (frame_bytes <= 0) return record_queue_frames;
  const auto fitting =
      static_cast<std::size_t>(static_cast<double>(record_queue_bytes) / frame_bytes);
  return std::clamp<std::size_t>(fitting, 2, std::max<std::size_t>(record_queue_frames, 2));
}

std::string MediaOutput::describe() const {
  std::vector<std::string> names;
  for (const auto& target : targets) {
    switch (target.kind) {
      case OutputTarget::Kind::file:
        names.push_back("file:" + target.file_pattern);
        break;
      case OutputTarget::Kind::screen:
      case OutputTarget::Kind::multiview:
      case OutputTarget::Kind::program:
        names.push_back(to_string(target.kind) + ":" + target.screen);
        break;
      default:
        names.push_back(to_string(target.kind));
    }
  }
  return names.empty() ? "none" : fmt::format("{}", fmt::join(names, " + "));
}

MediaOutput parse_outputs(const std::vector<std::string>& specs, std::size_t streams,
                          bool fullscreen, std::string layout) {
  MediaOutput output;
  output.fullscreen = fullscreen;
  output.layout = std::move(layout);
  for (const auto& spec : specs) {
    if (std::ranges::count(specs, spec) > 1) {
      throw SpecError(fmt::format("--output '{}' is given twice", spec));
    }
    output.targets.push_back(parse_target(spec, streams, fullscreen));
  }
  for (const auto kind : {OutputTarget::Kind::multiview, OutputTarget::Kind::program}) {
    if (std::ranges::count(output.targets, kind, &OutputTarget::kind) > 1) {
      throw SpecError(fmt::format("--output {}: one per receiver", to_string(kind)));
    }
  }
  // "null" is "decode and show nowhere": beside a real output it would mean nothing.
  if (output.find(OutputTarget::Kind::null) && output.targets.size() > 1) {
    throw SpecError("--output null decodes and discards: it cannot go with other outputs");
  }
  if (fullscreen && std::ranges::count(specs, "display") == 0) {
    throw SpecError("--fullscreen goes with --output display (screen:N is always fullscreen)");
  }
  if (!output.layout.empty() && !output.find(OutputTarget::Kind::multiview)) {
    throw SpecError("--layout goes with --output multiview");
  }
  if (output.on_screens() && !display_available()) {
    throw SpecError(
        "--output display/screen/multiview/program: no display ($DISPLAY / $WAYLAND_DISPLAY unset; "
        "on a "
        "console "
        "set QT_QPA_PLATFORM=eglfs or linuxfb)");
  }
  return output;
}

}  // namespace hdstream
