#include "common/endpoint.hpp"

#include <charconv>

#include <fmt/format.h>

namespace hdstream {

std::string Endpoint::to_string() const {
  return host.find(':') != std::string::npos ? fmt::format("[{}]:{}", host, port)
                                             : fmt::format("{}:{}", host, port);
}

Endpoint parse_endpoint(std::string_view text, bool listening) {
  auto fail = [&](std::string_view why) {
    return EndpointError(fmt::format("invalid address '{}': {} (expected HOST:PORT)", text, why));
  };
  const auto colon = text.rfind(':');
  if (colon == std::string_view::npos) throw fail("missing ':PORT'");
  std::string_view host = text.substr(0, colon);
  std::string_view port_text = text.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string_view::npos) {
    throw fail("IPv6 addresses go in brackets, e.g. [::1]:9000");
  }
  unsigned port = 0;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_text.empty() || ec != std::errc{} || end != port_text.data() + port_text.size() ||
      port > 65535) {
    throw fail("port must be a number from 1 to 65535");
  }
  if (port == 0 && !listening) throw fail("port 0 is only valid for --listen");
  if (host.empty()) {
    if (!listening) throw fail("missing host");
    host = "0.0.0.0";
  }
  return Endpoint{std::string(host), static_cast<std::uint16_t>(port)};
}

}  // namespace hdstream
