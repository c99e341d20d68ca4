#include "presets/presets.hpp"

#include <fmt/format.h>

namespace hdstream {

const std::vector<FormatPreset>& builtin_formats() {
  static const std::vector<FormatPreset> formats{
      {"synthetic", "verifiable pseudo-random frames at --rate, 29.97 fps",
       FeedDescriptor{Codec::synthetic, 1920, 1080, 30000, 1001, 270'000'000}},
  };
  return formats;
}

std::optional<FormatPreset> find_format(std::string_view name) {
  for (const auto& format : builtin_formats()) {
    if (format.name == name) return format;
  }
  return std::nullopt;
}

Destination resolve_destination(std::string_view text) {
  if (text == "loopback") return Destination{"loopback", Endpoint{"127.0.0.1", 9000}};
  if (text.find(':') == std::string_view::npos) {
    throw EndpointError(fmt::format(
        "unknown destination '{}': not a preset name (known: loopback), and an address needs a "
        "port (HOST:PORT)",
        text));
  }
  return Destination{std::string(text), parse_endpoint(text)};
}

}  // namespace hdstream
