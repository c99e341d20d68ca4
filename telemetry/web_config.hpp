// Prometheus's web configuration files (the exporter-toolkit format every exporter reads with
// --web.config.file), for the telemetry server (--web-config) and for `hdstream monitor`
// (--http-config, the client side Prometheus and promtool read).
// docs/telemetry.md#tls-and-basic-auth.
//
//   # web.yml: the server                   # http.yml: a client
//   tls_server_config:                      tls_config:
//     cert_file: studio.crt                   ca_file: studio-ca.crt
//     key_file: studio.key                  basic_auth:
//   basic_auth_users:                         username: prometheus
//     prometheus: $2b$10$...(bcrypt)          password_file: scrape.pass
//
// Relative paths are relative to the file's directory, as exporter-toolkit resolves them. What
// hdstream does not implement (cipher suites, HTTP/2 settings, client certificates) is refused
// by name rather than ignored: a setting an operator wrote is a setting they expect to hold.
//   WebConfig config = load_web_config("web.yml");   // throws WebConfigError("web.yml:4: ...")
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>

namespace hdstream {

// One line naming the file, the line and what to fix.
class WebConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class TlsVersion { tls12, tls13 };

struct WebConfig {
  struct Tls {
    std::filesystem::path cert_file;  // PEM, the chain the server presents
    std::filesystem::path key_file;   // PEM, its private key
    TlsVersion min_version = TlsVersion::tls12;
  };
  std::optional<Tls> tls;  // tls_server_config: every connection is TLS
  // basic_auth_users: user -> bcrypt hash ($2a$, $2b$ or $2y$); empty: no authentication.
  std::map<std::string, std::string> basic_auth_users;
};

// Reads and checks a server's file: both TLS files readable, every hash a bcrypt hash.
WebConfig load_web_config(const std::filesystem::path& file);

struct HttpClientConfig {
  struct Tls {
    std::filesystem::path ca_file;  // PEM; empty: the system's trust store
    std::string server_name;        // checked against the certificate; empty: the host polled
    bool insecure_skip_verify = false;
  };
  std::optional<Tls> tls;  // tls_config: HTTPS to every host
  struct BasicAuth {
    std::string username;
    std::string password;  // password, or the first line of password_file
  };
  std::optional<BasicAuth> basic_auth;
};

// Reads and checks a client's file (promtool's --http.config.file format).
HttpClientConfig load_http_client_config(const std::filesystem::path& file);

}  // namespace hdstream
