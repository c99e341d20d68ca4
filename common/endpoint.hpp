// HOST:PORT parsing for --dest and --listen.
//   Endpoint e = parse_endpoint("127.0.0.1:9000");  Endpoint l = parse_endpoint(":9000", true);
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace hdstream {

struct Endpoint {
  std::string host;  // name, IPv4 or IPv6 literal (without brackets)
  std::uint16_t port = 0;

  std::string to_string() const;
  bool operator==(const Endpoint&) const = default;
};

class EndpointError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// "host:port", "[v6::addr]:port"; with `allow_empty_host`, ":port" (host becomes "0.0.0.0").
// Port 0 is accepted only when `allow_empty_host` is set (listen on an ephemeral port).
Endpoint parse_endpoint(std::string_view text, bool listening = false);

}  // namespace hdstream
