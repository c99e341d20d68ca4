#include <cstdlib>
#include <iostream>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "app/commands.hpp"
#include "app/exit_codes.hpp"
#include "presets/presets.hpp"

namespace hdstream {
namespace {

// The environment variables that override preset keys (see app/cli.cpp).
const char* environment_for(std::string_view key) {
  if (key == "streams") return "HDSTREAM_STREAMS";
  if (key == "rate") return "HDSTREAM_RATE";
  if (key == "format") return "HDSTREAM_FORMAT";
  if (key == "transport") return "HDSTREAM_TRANSPORT";
  if (key == "cc") return "HDSTREAM_CC";
  if (key == "rtt") return "HDSTREAM_RTT";
  if (key == "latency") return "HDSTREAM_LATENCY";
  return nullptr;
}

}  // namespace

int run_presets(const PresetsOptions& options) {
  const PresetStore store = load_presets(options.common.config_file);
  auto& out = std::cout;
  if (options.action == "list") {
    for (auto kind : {PresetKind::destination, PresetKind::format, PresetKind::profile}) {
      fmt::print(out, "{}s:\n", to_string(kind));
      for (const auto& name : store.names(kind)) {
        const PresetEntry* entry = store.find(kind, name);
        const PresetValue* description = entry->get("description");
        fmt::print(out, "  {:<12} {}\n", name,
                   description ? std::get<std::string>(description->value) : std::string());
      }
    }
    fmt::print(out, "loaded from, lowest precedence first:\n");
    for (const auto& file : store.files()) fmt::print(out, "  {}\n", file);
    return exit_code::success;
  }

  bool found = false;
  for (auto kind : {PresetKind::destination, PresetKind::format, PresetKind::profile}) {
    const PresetEntry* entry = store.find(kind, options.name);
    if (!entry) continue;
    found = true;
    // Typed parsing reports a bad value with its file:line before anything is shown.
    if (kind == PresetKind::destination) destination_from(*entry);
    if (kind == PresetKind::format) format_from(*entry);
    if (kind == PresetKind::profile) profile_from(*entry);
    fmt::print(out, "[{}s.{}]\n", to_string(kind), entry->name);
    for (const auto& [key, value] : entry->values) {
      const char* variable = environment_for(key);
      const char* overridden = variable ? std::getenv(variable) : nullptr;
      if (kind != PresetKind::format && overridden) {
        fmt::print(out, "{} = \"{}\"  # environment {} (preset: {} at {})\n", key, overridden,
                   variable, value.text(), value.origin);
      } else {
        fmt::print(out, "{} = {}  # {}\n", key, value.text(), value.origin);
      }
    }
  }
  if (!found) {
    fmt::print(stderr, "hdstream: error: no preset named '{}' (see hdstream presets list)\n",
               options.name);
    return exit_code::usage;
  }
  return exit_code::success;
}

}  // namespace hdstream
