#include "pipeline/media_output.hpp"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "media/gst_display.hpp"
#include "pipeline/media_sources.hpp"

namespace hdstream {
namespace {

OutputTarget parse_target(const std::string& spec, std::size_t streams, bool fullscreen) {
  OutputTarget target;
  if (spec == "null") {
    target.kind = OutputTarget::Kind::null;
  } else if (spec == "display") {
    target.kind = OutputTarget::Kind::display;
    if (auto problem = display_problem(fullscreen); !problem.empty()) throw SpecError(problem);
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
  } else {
    throw SpecError(fmt::format("--output '{}': expected null, display or file:PATTERN", spec));
  }
  return target;
}

}  // namespace

std::string to_string(OutputTarget::Kind kind) {
  switch (kind) {
    case OutputTarget::Kind::null:
      return "null";
    case OutputTarget::Kind::display:
      return "display";
    case OutputTarget::Kind::file:
      return "file";
  }
  return "?";
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
    names.push_back(target.kind == OutputTarget::Kind::file ? "file:" + target.file_pattern
                                                            : to_string(target.kind));
  }
  return names.empty() ? "none" : fmt::format("{}", fmt::join(names, " + "));
}

MediaOutput parse_outputs(const std::vector<std::string>& specs, std::size_t streams,
                          bool fullscreen) {
  MediaOutput output;
  output.fullscreen = fullscreen;
  for (const auto& spec : specs) {
    if (std::ranges::count(specs, spec) > 1) {
      throw SpecError(fmt::format("--output '{}' is given twice", spec));
    }
    output.targets.push_back(parse_target(spec, streams, fullscreen));
  }
  // "null" is "decode and show nowhere": beside a real output it would mean nothing.
  if (output.find(OutputTarget::Kind::null) && output.targets.size() > 1) {
    throw SpecError("--output null decodes and discards: it cannot go with other outputs");
  }
  if (fullscreen && !output.find(OutputTarget::Kind::display)) {
    throw SpecError("--fullscreen goes with --output display");
  }
  return output;
}

}  // namespace hdstream
