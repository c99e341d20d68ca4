#include "presets/presets.hpp"

#include <fmt/format.h>

namespace hdstream {

const std::vector<FormatPreset>& builtin_formats() {
  // Rates are the exact payload: frame bytes x 8 x fps. Uncompressed v210 rows are padded to
  // 128 bytes per 48 pixels (SMPTE/Apple v210), UYVY is 2 bytes a pixel. DNxHD 220 at 1080
  // 29.97 is CID 1238, 917,504 bytes a frame.
  static const std::vector<FormatPreset> formats{
      {"dnxhd220",
       "1920x1080 29.97, DNxHD/VC-3 220 (libavcodec dnxhd), 220 Mbps: the studio feed",
       FeedDescriptor{Codec::dnxhd, 1920, 1080, 30000, 1001, 219'980'979}, "bars"},
      {"sdi270", "720x486 29.97 4:2:2 10-bit v210, uncompressed SD (SMPTE 259M class), 224 Mbps",
       FeedDescriptor{Codec::v210, 720, 486, 30000, 1001, 223'725'075},
       "videotestsrc pattern=smpte horizontal-speed=12"},
      {"uyvy1080", "1920x1080 29.97 UYVY 8-bit, uncompressed HD, 994 Mbps",
       FeedDescriptor{Codec::uyvy, 1920, 1080, 30000, 1001, 994'333'666},
       "videotestsrc pattern=smpte horizontal-speed=32"},
      {"v210-1080p60", "1920x1080 59.94 v210 10-bit, uncompressed HD, 2.65 Gbps",
       FeedDescriptor{Codec::v210, 1920, 1080, 60000, 1001, 2'651'556'444},
       "videotestsrc pattern=smpte horizontal-speed=16"},
      {"synthetic", "verifiable pseudo-random frames at --rate, 29.97 fps",
       FeedDescriptor{Codec::synthetic, 1920, 1080, 30000, 1001, 270'000'000}, "synthetic"},
  };
  return formats;
}

std::vector<std::string> format_names() {
  std::vector<std::string> names;
  for (const auto& format : builtin_formats()) names.push_back(format.name);
  return names;
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
