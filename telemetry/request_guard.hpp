// Who may ask the telemetry server what (docs/telemetry.md#who-may-ask). Every request names
// this server in its Host header: the address the client reached, "localhost", this machine's
// name, or a name given with --metrics-name. A web page that rebinds its own name to this address
// (DNS rebinding) names itself, and is refused. A request a browser makes for a page of another
// origin (its Origin, or Sec-Fetch-Site) is refused. POST /program takes the control key as a
// bearer token; without --control-key-file, HTTP control is off (keys, clicks and the panel
// still cut).
//   RequestGuard guard({.names = {"studio-a"}, .control_token = matches_my_key});
//   if (auto refusal = guard.check({.host = ..., .origin = ...}, reached)) answer(*refusal);
//   if (auto refusal = guard.check_control(authorization)) answer(*refusal);
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hdstream {

struct RequestGuardOptions {
  // Names clients reach this server by, besides its address, "localhost" and the machine's name.
  std::vector<std::string> names;
  // Whether a bearer token is the control key; unset: HTTP control is off.
  std::function<bool(std::string_view token)> control_token;
};

// What a request says about where it comes from (its headers; empty when absent).
struct RequestOrigin {
  std::string_view host;        // Host
  std::string_view origin;      // Origin
  std::string_view fetch_site;  // Sec-Fetch-Site
};

// Why a request is refused: the HTTP status and one line for the client.
struct Refusal {
  unsigned status = 403;
  std::string reason;
  bool wants_credentials = false;  // 401: answer with WWW-Authenticate: Bearer
};

// The name or address in a Host header, without its port ("[::1]:9100" -> "::1",
// "studio:9100" -> "studio"); nullopt when the header is not a host[:port].
std::optional<std::string> host_of(std::string_view host_header);

class RequestGuard {
 public:
  explicit RequestGuard(RequestGuardOptions options);

  // nullopt: the request may go on. `reached` is the address the client connected to.
  std::optional<Refusal> check(const RequestOrigin& request, std::string_view reached) const;
  // For POST /program, after check(): nullopt when `authorization` carries the control key.
  std::optional<Refusal> check_control(std::string_view authorization) const;

 private:
  bool names_this_server(const std::string& host, std::string_view reached) const;

  std::vector<std::string> names_;  // lower case
  std::function<bool(std::string_view)> control_token_;
};

}  // namespace hdstream
