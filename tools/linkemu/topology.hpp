// What to emulate: the sites (one namespace each, with their host addresses) and the link
// profile every direction between two sites gets. Read from the [link] and [[site]] tables of a
// TOML file (tools/linkemu/README.md has the schema); malformed input is one ConfigError line.
//   Topology t = load_topology("tests/wan/sc99.toml");   // or parse_topology_text(text, "x")
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "tools/linkemu/link_model.hpp"

namespace toml {
inline namespace v3 {
class table;
}
}  // namespace toml

namespace hdstream::linkemu {

// "file:line:col: what is wrong" — the whole message a user needs.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Site {
  std::string name;                // [a-z0-9]{1,10}; the namespace is prefix + name
  std::vector<std::string> hosts;  // IPv4 addresses in 198.18.0.0/15
};

struct Topology {
  std::vector<Site> sites;
  LinkProfile link;    // each direction between each pair of sites
  std::string prefix;  // namespace name prefix; empty: default_prefix()
};

// Parses the [link] and [[site]] tables; other top-level keys are left to the caller (scenario
// files add their own), but unknown keys inside [link] and [[site]] are errors.
Topology parse_topology(const toml::table& root, std::string_view source_name);
Topology parse_topology_text(std::string_view text, std::string_view source_name);
Topology load_topology(const std::string& path);

// Site i's hosts by default: 198.18.<i>.1 .. 198.18.<i>.<count>.
std::vector<std::string> default_hosts(std::size_t site_index, std::size_t count);

// Applies a queue given as text: "2M" (bytes) or "1.5bdp" (times the round-trip BDP).
std::uint64_t parse_queue_bytes(std::string_view text, const LinkProfile& link);

}  // namespace hdstream::linkemu
