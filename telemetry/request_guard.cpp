#include "telemetry/request_guard.hpp"

#include <algorithm>
#include <cctype>

#include "common/asio.hpp"
#include "common/provenance.hpp"

namespace hdstream {
namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool all_of(std::string_view text, bool (*allowed)(char)) {
  return !text.empty() && std::all_of(text.begin(), text.end(), allowed);
}

bool digit(char c) {
  return c >= '0' && c <= '9';
}
bool name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_';
}
bool address6_char(char c) {
  return std::isxdigit(static_cast<unsigned char>(c)) || c == ':' || c == '.';
}

// The address `text` names, IPv4-mapped IPv6 as IPv4; nullopt when it is not an address.
std::optional<asio::ip::address> address_of(std::string_view text) {
  boost::system::error_code ec;
  auto address = asio::ip::make_address(std::string(text), ec);
  if (ec) return std::nullopt;
  if (address.is_v6() && address.to_v6().is_v4_mapped()) {
    return asio::ip::make_address_v4(asio::ip::v4_mapped, address.to_v6());
  }
  return address;
}

}  // namespace

std::optional<std::string> host_of(std::string_view header) {
  std::string_view host = header, port;
  if (header.starts_with('[')) {
    const auto close = header.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    host = header.substr(1, close - 1);
    const std::string_view rest = header.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return std::nullopt;
      port = rest.substr(1);
      if (port.size() > 5 || !all_of(port, digit)) return std::nullopt;
    }
    if (!all_of(host, address6_char)) return std::nullopt;
    return lower(host);
  }
  if (const auto colon = header.rfind(':'); colon != std::string_view::npos) {
    host = header.substr(0, colon);
    port = header.substr(colon + 1);
    if (!all_of(port, digit)) return std::nullopt;
  }
  if (port.size() > 5 || !all_of(host, name_char)) return std::nullopt;
  return lower(host);
}

RequestGuard::RequestGuard(RequestGuardOptions options)
    : control_token_(std::move(options.control_token)) {
  names_.push_back("localhost");
  names_.push_back(lower(host_name()));
  for (const auto& name : options.names) names_.push_back(lower(name));
}

bool RequestGuard::names_this_server(const std::string& host, std::string_view reached) const {
  if (std::find(names_.begin(), names_.end(), host) != names_.end()) return true;
  const auto named = address_of(host), at = address_of(reached);
  return named && at && *named == *at;
}

std::optional<Refusal> RequestGuard::check(const RequestOrigin& request,
                                           std::string_view reached) const {
  const auto host = host_of(request.host);
  if (!host) {
    return Refusal{400, request.host.empty() ? "a Host header is required"
                                             : "the Host header is not a host[:port]"};
  }
  if (!names_this_server(*host, reached)) {
    return Refusal{403, "Host '" + *host +
                            "' is not a name of this server (its address, localhost, this "
                            "machine's name, or one given with --metrics-name)"};
  }
  // A browser says where the page that made the request came from; only this server's own
  // pages (it has none) or no page at all (curl, Prometheus, hdstream monitor) may ask.
  if (!request.origin.empty()) {
    constexpr std::string_view kSeparator = "://";
    const auto scheme_end = request.origin.find(kSeparator);
    const std::string_view authority = scheme_end == std::string_view::npos
                                           ? std::string_view()
                                           : request.origin.substr(scheme_end + kSeparator.size());
    if (authority.empty() || lower(authority) != lower(request.host)) {
      return Refusal{403, "cross-origin requests are refused"};
    }
  }
  if (request.fetch_site == "cross-site" || request.fetch_site == "same-site") {
    return Refusal{403, "cross-origin requests are refused"};
  }
  return std::nullopt;
}

std::optional<Refusal> RequestGuard::check_control(std::string_view authorization) const {
  if (!control_token_) {
    return Refusal{403,
                   "HTTP control is off: start the receiver with --control-key-file FILE and send "
                   "'Authorization: Bearer <the file's 64 hex digits>' (keys, clicks and the "
                   "panel cut without it)"};
  }
  constexpr std::string_view kScheme = "bearer ";
  std::string_view token;
  if (authorization.size() > kScheme.size() &&
      lower(authorization.substr(0, kScheme.size())) == kScheme) {
    token = authorization.substr(kScheme.size());
    while (token.starts_with(' ')) token.remove_prefix(1);
    while (token.ends_with(' ')) token.remove_suffix(1);
  }
  if (token.empty() || !control_token_(token)) {
    return Refusal{401,
                   "POST /program needs the control key: 'Authorization: Bearer <the 64 hex "
                   "digits of the receiver's --control-key-file>'",
                   /*wants_credentials=*/true};
  }
  return std::nullopt;
}

}  // namespace hdstream
