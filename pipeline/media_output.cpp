#include "pipeline/media_output.hpp"

#include <filesystem>

#include <fmt/format.h>

#include "media/gst_display.hpp"
#include "pipeline/media_sources.hpp"

namespace hdstream {

std::string to_string(MediaOutput::Kind kind) {
  switch (kind) {
    case MediaOutput::Kind::null:
      return "null";
    case MediaOutput::Kind::display:
      return "display";
    case MediaOutput::Kind::file:
      return "file";
    case MediaOutput::Kind::none:
      break;
  }
  return "none";
}

MediaOutput parse_output(const std::string& spec, std::size_t streams, bool fullscreen) {
  MediaOutput output;
  output.fullscreen = fullscreen;
  if (spec == "null") {
    output.kind = MediaOutput::Kind::null;
  } else if (spec == "display") {
    output.kind = MediaOutput::Kind::display;
    if (auto problem = display_problem(fullscreen); !problem.empty()) throw SpecError(problem);
  } else if (spec.rfind("file:", 0) == 0) {
    output.kind = MediaOutput::Kind::file;
    output.file_pattern = spec.substr(5);
    if (output.file_pattern.empty()) {
      throw SpecError("--output file: needs a pattern, e.g. file:rec/feed{stream}.mov");
    }
    if (streams > 1 && output.file_pattern.find("{stream}") == std::string::npos) {
      throw SpecError(
          fmt::format("--output '{}': {} streams would share one file; put {{stream}} "
                      "in the pattern",
                      spec, streams));
    }
    const auto parent =
        std::filesystem::path(substitute_stream(output.file_pattern, 0)).parent_path();
    if (!parent.empty() && !std::filesystem::is_directory(parent)) {
      throw SpecError(
          fmt::format("--output '{}': directory '{}' does not exist", spec, parent.string()));
    }
    const auto extension = std::filesystem::path(output.file_pattern).extension().string();
    if (extension != ".mov" && extension != ".mkv" && extension != ".mxf") {
      throw SpecError(
          fmt::format("--output '{}': name the file .mov, .mkv or .mxf (DNxHD: any; "
                      "v210/UYVY: .mov or .mkv)",
                      spec));
    }
  } else {
    throw SpecError(fmt::format("--output '{}': expected null, display or file:PATTERN", spec));
  }
  if (fullscreen && output.kind != MediaOutput::Kind::display) {
    throw SpecError("--fullscreen goes with --output display");
  }
  return output;
}

}  // namespace hdstream
