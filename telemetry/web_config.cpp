#include "telemetry/web_config.hpp"

#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include "telemetry/password_check.hpp"

namespace hdstream {
namespace {

// A configuration file is a few lines: anything larger is not one.
constexpr std::uintmax_t kMaxFileBytes = 64 * 1024;

// Reads the whole of a small text file; throws WebConfigError naming it.
std::string read_small_file(const std::filesystem::path& file, std::string_view what) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(file, ec);
  if (ec) throw WebConfigError(fmt::format("{} {}: {}", what, file.string(), ec.message()));
  if (size > kMaxFileBytes) {
    throw WebConfigError(fmt::format("{} {}: {} bytes; a configuration file is at most {}", what,
                                     file.string(), size, kMaxFileBytes));
  }
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) throw WebConfigError(fmt::format("{} {}: cannot read it", what, file.string()));
  return text.str();
}

// Where a node is, for errors: "web.yml:4".
std::string at(const std::filesystem::path& file, const YAML::Node& node) {
  return fmt::format("{}:{}", file.string(), node.Mark().line + 1);
}

YAML::Node parse(const std::filesystem::path& file, std::string_view what) {
  const std::string text = read_small_file(file, what);
  try {
    YAML::Node root = YAML::Load(text);
    if (root.IsNull()) return YAML::Node(YAML::NodeType::Map);  // an empty file: the defaults
    if (!root.IsMap()) {
      throw WebConfigError(fmt::format("{}: expected a mapping of settings", at(file, root)));
    }
    return root;
  } catch (const YAML::Exception& error) {
    throw WebConfigError(
        fmt::format("{}:{}: not YAML: {}", file.string(), error.mark.line + 1, error.msg));
  }
}

// "section.key", or "key" at the top level (section "").
std::string qualified(std::string_view section, const std::string& key) {
  return section.empty() ? key : fmt::format("{}.{}", section, key);
}

// Each key of `map` through `handle(key, value)`, refusing a key not in `known`: exporter-toolkit
// refuses unknown fields too, and a misspelt setting must not silently do nothing.
void each_setting(const std::filesystem::path& file, const YAML::Node& map,
                  std::string_view section, const std::set<std::string>& known,
                  const std::set<std::string>& unsupported,
                  const std::function<void(const std::string&, const YAML::Node&)>& handle) {
  if (!map.IsMap()) {
    throw WebConfigError(fmt::format("{}: {} must be a mapping", at(file, map),
                                     section.empty() ? "the file" : section));
  }
  for (const auto& entry : map) {
    if (!entry.first.IsScalar()) {
      throw WebConfigError(fmt::format("{}: a key is not a name", at(file, entry.first)));
    }
    const auto key = entry.first.as<std::string>();
    if (unsupported.contains(key)) {
      throw WebConfigError(fmt::format("{}: {} is not supported by hdstream; remove it",
                                       at(file, entry.first), qualified(section, key)));
    }
    if (!known.contains(key)) {
      throw WebConfigError(fmt::format("{}: unknown setting {} (known: {})", at(file, entry.first),
                                       qualified(section, key), fmt::join(known, ", ")));
    }
    handle(key, entry.second);
  }
}

std::string scalar(const std::filesystem::path& file, const YAML::Node& node,
                   std::string_view name) {
  if (!node.IsScalar()) {
    throw WebConfigError(fmt::format("{}: {} must be a single value", at(file, node), name));
  }
  return node.as<std::string>();
}

// A path in the file, relative to the file's directory; it must be readable.
std::filesystem::path readable_path(const std::filesystem::path& file, const YAML::Node& node,
                                    std::string_view name) {
  std::filesystem::path path = scalar(file, node, name);
  if (path.empty()) throw WebConfigError(fmt::format("{}: {} is empty", at(file, node), name));
  if (path.is_relative()) path = file.parent_path() / path;
  if (!std::ifstream(path)) {
    throw WebConfigError(
        fmt::format("{}: {} {}: cannot read it", at(file, node), name, path.string()));
  }
  return path;
}

bool boolean(const std::filesystem::path& file, const YAML::Node& node, std::string_view name) {
  const std::string text = scalar(file, node, name);
  if (text == "true") return true;
  if (text == "false") return false;
  throw WebConfigError(fmt::format("{}: {} must be true or false", at(file, node), name));
}

}  // namespace

WebConfig load_web_config(const std::filesystem::path& file) {
  const YAML::Node root = parse(file, "--web-config");
  WebConfig config;
  each_setting(
      file, root, "", {"tls_server_config", "basic_auth_users", "http_server_config"}, {},
      [&](const std::string& key, const YAML::Node& value) {
        if (key == "http_server_config") {
          // Only an empty one: HTTP/2 and response headers are not served here.
          each_setting(file, value, key, {}, {"http2", "headers"},
                       [](const std::string&, const YAML::Node&) {});
        } else if (key == "tls_server_config") {
          WebConfig::Tls tls;
          each_setting(
              file, value, key, {"cert_file", "key_file", "client_auth_type", "min_version"},
              {"cert", "key", "client_ca_file", "client_allowed_sans", "max_version",
               "cipher_suites", "prefer_server_cipher_suites", "curve_preferences"},
              [&](const std::string& name, const YAML::Node& setting) {
                if (name == "cert_file") {
                  tls.cert_file = readable_path(file, setting, name);
                } else if (name == "key_file") {
                  tls.key_file = readable_path(file, setting, name);
                } else if (name == "client_auth_type") {
                  if (scalar(file, setting, name) != "NoClientCert") {
                    throw WebConfigError(fmt::format(
                        "{}: client_auth_type: only NoClientCert (client certificates are not "
                        "supported by hdstream; use basic_auth_users)",
                        at(file, setting)));
                  }
                } else {
                  const std::string version = scalar(file, setting, name);
                  if (version == "TLS12") {
                    tls.min_version = TlsVersion::tls12;
                  } else if (version == "TLS13") {
                    tls.min_version = TlsVersion::tls13;
                  } else {
                    throw WebConfigError(fmt::format("{}: min_version: TLS12 or TLS13, not {}",
                                                     at(file, setting), version));
                  }
                }
              });
          if (tls.cert_file.empty() || tls.key_file.empty()) {
            throw WebConfigError(
                fmt::format("{}: tls_server_config needs cert_file and key_file", at(file, value)));
          }
          config.tls = std::move(tls);
        } else {
          if (!value.IsMap()) {
            throw WebConfigError(fmt::format(
                "{}: basic_auth_users must map each user to a bcrypt hash", at(file, value)));
          }
          for (const auto& user : value) {
            const auto name = scalar(file, user.first, "a user name");
            const auto hash = scalar(file, user.second, "a password hash");
            if (name.empty() || name.find(':') != std::string::npos) {
              throw WebConfigError(
                  fmt::format("{}: a user name is not empty and has no ':'", at(file, user.first)));
            }
            if (!is_bcrypt_hash(hash)) {
              throw WebConfigError(
                  fmt::format("{}: the password of {} is not a bcrypt hash ($2b$..., e.g. from "
                              "`htpasswd -nBC 10 {}`)",
                              at(file, user.second), name, name));
            }
            config.basic_auth_users[name] = hash;
          }
        }
      });
  return config;
}

HttpClientConfig load_http_client_config(const std::filesystem::path& file) {
  const YAML::Node root = parse(file, "--http-config");
  HttpClientConfig config;
  each_setting(
      file, root, "", {"tls_config", "basic_auth"},
      {"authorization", "oauth2", "bearer_token", "bearer_token_file", "proxy_url",
       "follow_redirects", "enable_http2"},
      [&](const std::string& key, const YAML::Node& value) {
        if (key == "tls_config") {
          HttpClientConfig::Tls tls;
          each_setting(file, value, key, {"ca_file", "server_name", "insecure_skip_verify"},
                       {"ca", "cert", "key", "cert_file", "key_file", "min_version", "max_version"},
                       [&](const std::string& name, const YAML::Node& setting) {
                         if (name == "ca_file") {
                           tls.ca_file = readable_path(file, setting, name);
                         } else if (name == "server_name") {
                           tls.server_name = scalar(file, setting, name);
                         } else {
                           tls.insecure_skip_verify = boolean(file, setting, name);
                         }
                       });
          config.tls = std::move(tls);
        } else {
          HttpClientConfig::BasicAuth auth;
          bool has_password = false;
          each_setting(
              file, value, key, {"username", "password", "password_file"}, {"username_file"},
              [&](const std::string& name, const YAML::Node& setting) {
                if (name == "username") {
                  auth.username = scalar(file, setting, name);
                } else if (name == "password") {
                  if (has_password) {
                    throw WebConfigError(fmt::format("{}: give password or password_file, not both",
                                                     at(file, setting)));
                  }
                  auth.password = scalar(file, setting, name);
                  has_password = true;
                } else {
                  if (has_password) {
                    throw WebConfigError(fmt::format("{}: give password or password_file, not both",
                                                     at(file, setting)));
                  }
                  const auto path = readable_path(file, setting, name);
                  std::string text = read_small_file(path, "password_file");
                  // Prometheus trims the file's surrounding white space.
                  const auto first = text.find_first_not_of(" \t\r\n");
                  const auto last = text.find_last_not_of(" \t\r\n");
                  auth.password = first == std::string::npos ? std::string()
                                                             : text.substr(first, last - first + 1);
                  has_password = true;
                }
              });
          if (auth.username.empty() || auth.username.find(':') != std::string::npos) {
            throw WebConfigError(
                fmt::format("{}: basic_auth needs a username (without ':')", at(file, value)));
          }
          config.basic_auth = std::move(auth);
        }
      });
  return config;
}

}  // namespace hdstream
