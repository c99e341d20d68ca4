// What to emulate: the sites (one namespace each, with their host addresses) and the link
// profile every direction between two sites gets, on path A ([link]) and, if given, on a second,
// independent path B ([path_b]). Read from the [link], [path_b] and [[site]] tables of a TOML
// file (tools/linkemu/README.md has the schema); malformed input is one ConfigError line.
//   Topology t = load_topology("tests/wan/sc99.toml");   // or parse_topology_text(text, "x")
//   for (Path p : t.paths()) use(t.profile(p), t.sites[0].hosts_on(p));
#pragma once

#include <cstdint>
#include <optional>
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

// The independent paths between the sites, as SMPTE ST 2022-7 protection uses two networks:
// path A ([link]) always, on the sites' own addresses; path B ([path_b]) if configured, on the
// same hosts moved to 198.19.0.0/16. A packet to or from a path-B address travels on path B.
enum class Path : std::uint8_t { invalid = 0, a, b };
std::string_view to_string(Path path);  // "a", "b"

// A host's address on `path`: on A the address itself; on B the same host in 198.19.0.0/16
// (198.18.1.2 -> 198.19.1.2). Throws std::invalid_argument for B if `path_a_address` is not in
// 198.18.0.0/16, and for Path::invalid.
std::string address_on(Path path, const std::string& path_a_address);

struct Site {
  std::string name;                // [a-z0-9]{1,10}; the namespace is prefix + name
  std::vector<std::string> hosts;  // IPv4 addresses in 198.18.0.0/15: the hosts on path A

  // The same hosts on `path`, in the same order (address_on each).
  std::vector<std::string> hosts_on(Path path) const;
};

struct Topology {
  std::vector<Site> sites;
  LinkProfile link;                   // path A: each direction between each pair of sites
  std::optional<LinkProfile> path_b;  // path B, independent of A; none without [path_b]
  std::string prefix;                 // namespace name prefix; empty: default_prefix()

  std::vector<Path> paths() const;  // {a} or {a, b}
  bool has(Path path) const;
  // The profile of `path`; throws std::invalid_argument for a path the topology lacks.
  const LinkProfile& profile(Path path) const;
};

// Parses the [link], [path_b] and [[site]] tables; other top-level keys are left to the caller
// (scenario files add their own), but unknown keys inside those tables are errors. With
// [path_b], site addresses must be in 198.18.0.0/16 (198.19.0.0/16 is path B's).
Topology parse_topology(const toml::table& root, std::string_view source_name);
Topology parse_topology_text(std::string_view text, std::string_view source_name);
Topology load_topology(const std::string& path);

// Site i's hosts by default: 198.18.<i>.1 .. 198.18.<i>.<count>.
std::vector<std::string> default_hosts(std::size_t site_index, std::size_t count);

// Applies a queue given as text: "2M" (bytes) or "1.5bdp" (times the round-trip BDP).
std::uint64_t parse_queue_bytes(std::string_view text, const LinkProfile& link);

}  // namespace hdstream::linkemu
