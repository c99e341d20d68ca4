// Named feed formats and destinations.
//   FeedDescriptor feed = find_format("dnxhd220").value().feed;
//   Destination dest = resolve_destination("127.0.0.1:9000");   // or a name: "loopback"
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/handshake.hpp"
#include "transport/endpoint.hpp"

namespace hdstream {

struct FormatPreset {
  std::string name;
  std::string description;
  FeedDescriptor feed;  // bit_rate_bps is the nominal rate; --rate overrides it for synthetic
  std::string default_source;  // --source when none is given (pipeline/media_sources.hpp)
};

// Names of every format, for the CLI's checks and help.
std::vector<std::string> format_names();

const std::vector<FormatPreset>& builtin_formats();
std::optional<FormatPreset> find_format(std::string_view name);

struct Destination {
  std::string name;  // the preset name, or the HOST:PORT text given
  Endpoint endpoint;
};

// A destination name ("loopback") or HOST:PORT. Throws EndpointError with one clear line.
Destination resolve_destination(std::string_view text);

}  // namespace hdstream
