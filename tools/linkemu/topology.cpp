#include "tools/linkemu/topology.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <stdexcept>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "common/units.hpp"

namespace hdstream::linkemu {
namespace {

std::string where(std::string_view source, const toml::node& node) {
  const auto& begin = node.source().begin;
  return fmt::format("{}:{}:{}", source, begin.line, begin.column);
}

[[noreturn]] void fail(std::string_view source, const toml::node& node, std::string_view what) {
  throw ConfigError(fmt::format("{}: {}", where(source, node), what));
}

void reject_unknown_keys(std::string_view source, const toml::table& table,
                         std::initializer_list<std::string_view> known, std::string_view context) {
  for (const auto& [key, value] : table) {
    if (std::find(known.begin(), known.end(), key.str()) == known.end()) {
      fail(source, value, fmt::format("unknown key '{}' in {}", key.str(), context));
    }
  }
}

std::string get_string(std::string_view source, const toml::node& node, std::string_view key) {
  if (auto value = node.value<std::string>()) return *value;
  fail(source, node, fmt::format("'{}' must be a string", key));
}

double get_number(std::string_view source, const toml::node& node, std::string_view key) {
  if (auto value = node.value<double>()) return *value;  // integers convert too
  fail(source, node, fmt::format("'{}' must be a number", key));
}

double get_probability(std::string_view source, const toml::node& node, std::string_view key) {
  const double p = get_number(source, node, key);
  if (!(p >= 0 && p <= 1)) fail(source, node, fmt::format("'{}' must be between 0 and 1", key));
  return p;
}

// Runs a common/units parser and turns its error into file:line:col.
template <typename Parse>
auto parse_unit(std::string_view source, const toml::node& node, std::string_view key,
                Parse parse) {
  const std::string text = get_string(source, node, key);
  try {
    return parse(text);
  } catch (const UnitError& error) {
    fail(source, node, fmt::format("'{}': {}", key, error.what()));
  }
}

// One path's table: [link] (path A) or [path_b]; `name` is the table's name, for messages.
LinkProfile parse_link(std::string_view source, const toml::table& link, std::string_view name) {
  reject_unknown_keys(source, link, {"rtt", "rate", "queue", "loss", "jitter", "mtu", "burst"},
                      fmt::format("[{}]", name));
  LinkProfile profile;
  if (const auto* node = link.get("rtt")) {
    const auto rtt = parse_unit(source, *node, "rtt", parse_duration);
    if (rtt > std::chrono::seconds(10)) fail(source, *node, "'rtt' must be at most 10s");
    profile.one_way_delay = rtt / 2;
  }
  if (const auto* node = link.get("rate")) {
    const std::string text = get_string(source, *node, "rate");
    profile.rate_bps = text == "unlimited" ? 0 : parse_unit(source, *node, "rate", parse_rate_bps);
    if (profile.rate_bps > 100'000'000'000ULL) fail(source, *node, "'rate' must be at most 100G");
  }
  if (const auto* node = link.get("jitter")) {
    profile.jitter = parse_unit(source, *node, "jitter", parse_duration);
    if (profile.jitter > profile.one_way_delay) {
      fail(source, *node, "'jitter' must not exceed half the rtt (the one-way delay)");
    }
  }
  if (const auto* node = link.get("mtu")) {
    auto mtu = node->value<std::int64_t>();
    if (!mtu || *mtu < 576 || *mtu > 65000) {
      fail(source, *node, "'mtu' must be an integer between 576 and 65000");
    }
    profile.mtu_bytes = static_cast<std::uint32_t>(*mtu);
  }
  if (const auto* node = link.get("loss")) {
    profile.random_loss = get_probability(source, *node, "loss");
    if (profile.random_loss >= 1) fail(source, *node, "'loss' must be below 1");
  }
  if (const auto* node = link.get("burst")) {
    const auto* burst = node->as_table();
    if (!burst) fail(source, *node, "'burst' must be a table");
    reject_unknown_keys(source, *burst,
                        {"p_enter_bad", "p_leave_bad", "loss_in_bad", "loss_in_good"},
                        fmt::format("[{}.burst]", name));
    for (const auto& [key, value] : *burst) {
      const double p = get_probability(source, value, key.str());
      if (key == "p_enter_bad") profile.burst.p_enter_bad = p;
      if (key == "p_leave_bad") profile.burst.p_leave_bad = p;
      if (key == "loss_in_bad") profile.burst.loss_in_bad = p;
      if (key == "loss_in_good") profile.burst.loss_in_good = p;
    }
    if (profile.burst.enabled() && profile.burst.p_leave_bad <= 0) {
      fail(source, *node, "'p_leave_bad' must be above 0, or the link stays bad for ever");
    }
  }
  // The queue may be given in BDPs, so it is read once rate and delay are known.
  profile.queue_bytes = std::max<std::uint64_t>(profile.bdp_bytes(), 256 * 1024);
  if (const auto* node = link.get("queue")) {
    try {
      profile.queue_bytes = parse_queue_bytes(get_string(source, *node, "queue"), profile);
    } catch (const UnitError& error) {
      fail(source, *node, fmt::format("'queue': {}", error.what()));
    }
    if (profile.queue_bytes < profile.mtu_bytes) {
      fail(source, *node, "'queue' must hold at least one MTU-sized packet");
    }
  }
  return profile;
}

std::optional<std::uint32_t> parse_ipv4(const std::string& address) {
  in_addr parsed{};
  if (inet_pton(AF_INET, address.c_str(), &parsed) != 1) return std::nullopt;
  return ntohl(parsed.s_addr);
}

constexpr std::uint32_t kPathANetwork = 0xc6120000u;  // 198.18.0.0/16
constexpr std::uint32_t kPathBNetwork = 0xc6130000u;  // 198.19.0.0/16

bool in_benchmark_range(const std::string& address) {
  const auto parsed = parse_ipv4(address);
  return parsed && (*parsed & 0xfffe0000u) == kPathANetwork;  // 198.18.0.0/15
}

bool on_path_b(const std::string& address) {
  const auto parsed = parse_ipv4(address);
  return parsed && (*parsed & 0xffff0000u) == kPathBNetwork;
}

// With path B, `path_b` is true: its addresses (198.19.0.0/16) are derived, not given.
Site parse_site(std::string_view source, const toml::node& node, std::size_t index, bool path_b) {
  const auto* table = node.as_table();
  if (!table) fail(source, node, "each [[site]] must be a table");
  reject_unknown_keys(source, *table, {"name", "hosts", "addresses"}, "[[site]]");
  Site site;
  const auto* name = table->get("name");
  if (!name) fail(source, node, "[[site]] needs a 'name'");
  site.name = get_string(source, *name, "name");
  const bool name_ok = !site.name.empty() && site.name.size() <= 10 &&
                       std::all_of(site.name.begin(), site.name.end(), [](char c) {
                         return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
                       });
  if (!name_ok) fail(source, *name, "'name' must be 1 to 10 characters of a-z, 0-9");
  if (const auto* addresses = table->get("addresses")) {
    const auto* array = addresses->as_array();
    if (!array || array->empty()) fail(source, *addresses, "'addresses' must be a non-empty array");
    for (const auto& entry : *array) {
      std::string address = get_string(source, entry, "addresses");
      if (!in_benchmark_range(address)) {
        fail(source, entry, fmt::format("'{}' is not an IPv4 address in 198.18.0.0/15", address));
      }
      if (path_b && on_path_b(address)) {
        fail(source, entry,
             fmt::format("'{}' is in 198.19.0.0/16, which is path B's with [path_b]: give the "
                         "host's path A address in 198.18.0.0/16",
                         address));
      }
      site.hosts.push_back(std::move(address));
    }
  } else {
    std::int64_t count = 1;
    if (const auto* hosts = table->get("hosts")) {
      auto value = hosts->value<std::int64_t>();
      if (!value || *value < 1 || *value > 50) {
        fail(source, *hosts, "'hosts' must be an integer between 1 and 50");
      }
      count = *value;
    }
    site.hosts = default_hosts(index, static_cast<std::size_t>(count));
  }
  return site;
}

}  // namespace

std::string_view to_string(Path path) {
  switch (path) {
    case Path::a:
      return "a";
    case Path::b:
      return "b";
    case Path::invalid:
      break;
  }
  return "invalid";
}

std::string address_on(Path path, const std::string& path_a_address) {
  if (path == Path::a) return path_a_address;
  if (path != Path::b) throw std::invalid_argument("no such path");
  const auto parsed = parse_ipv4(path_a_address);
  if (!parsed || (*parsed & 0xffff0000u) != kPathANetwork) {
    throw std::invalid_argument(fmt::format(
        "{} has no path B address: path B moves 198.18.0.0/16 to 198.19.0.0/16", path_a_address));
  }
  const std::uint32_t host = kPathBNetwork | (*parsed & 0xffffu);
  return fmt::format("{}.{}.{}.{}", host >> 24, (host >> 16) & 0xff, (host >> 8) & 0xff,
                     host & 0xff);
}

std::vector<std::string> Site::hosts_on(Path path) const {
  std::vector<std::string> addresses;
  for (const auto& host : hosts) addresses.push_back(address_on(path, host));
  return addresses;
}

std::vector<Path> Topology::paths() const {
  if (path_b) return {Path::a, Path::b};
  return {Path::a};
}

bool Topology::has(Path path) const {
  return path == Path::a || (path == Path::b && path_b.has_value());
}

const LinkProfile& Topology::profile(Path path) const {
  if (path == Path::a) return link;
  if (path == Path::b && path_b) return *path_b;
  throw std::invalid_argument(
      fmt::format("the topology has no path {} (no [path_b] table)", to_string(path)));
}

std::vector<std::string> default_hosts(std::size_t site_index, std::size_t count) {
  std::vector<std::string> hosts;
  for (std::size_t i = 1; i <= count; ++i)
    hosts.push_back(fmt::format("198.18.{}.{}", site_index, i));
  return hosts;
}

std::uint64_t parse_queue_bytes(std::string_view text, const LinkProfile& link) {
  constexpr std::string_view kBdp = "bdp";
  if (text.size() > kBdp.size() && text.substr(text.size() - kBdp.size()) == kBdp) {
    const auto factor_text = std::string(text.substr(0, text.size() - kBdp.size()));
    char* end = nullptr;
    const double factor = std::strtod(factor_text.c_str(), &end);
    if (end == factor_text.c_str() || *end != '\0' || !(factor > 0) || factor > 100) {
      throw UnitError(fmt::format("invalid queue '{}': expected e.g. 1bdp or 0.5bdp", text));
    }
    if (link.rate_bps == 0 || link.one_way_delay.count() == 0) {
      throw UnitError(fmt::format("invalid queue '{}': a BDP needs both rate and rtt", text));
    }
    return static_cast<std::uint64_t>(std::llround(factor * static_cast<double>(link.bdp_bytes())));
  }
  return parse_bytes(text);
}

Topology parse_topology(const toml::table& root, std::string_view source) {
  Topology topology;
  if (const auto* link = root.get("link")) {
    const auto* table = link->as_table();
    if (!table) fail(source, *link, "'link' must be a table");
    topology.link = parse_link(source, *table, "link");
  } else {
    topology.link.queue_bytes = 256 * 1024;
  }
  if (const auto* path_b = root.get("path_b")) {
    const auto* table = path_b->as_table();
    if (!table) fail(source, *path_b, "'path_b' must be a table ([path_b])");
    topology.path_b = parse_link(source, *table, "path_b");
  }
  const auto* sites = root.get("site");
  if (!sites) throw ConfigError(fmt::format("{}: no [[site]] tables (need at least two)", source));
  const auto* array = sites->as_array();
  if (!array) fail(source, *sites, "'site' must be an array of tables ([[site]])");
  if (array->size() < 2 || array->size() > 8) fail(source, *sites, "need 2 to 8 [[site]] tables");
  std::set<std::string> names, addresses;
  for (std::size_t i = 0; i < array->size(); ++i) {
    Site site = parse_site(source, (*array)[i], i, topology.path_b.has_value());
    if (!names.insert(site.name).second) {
      fail(source, (*array)[i], fmt::format("site name '{}' used twice", site.name));
    }
    for (const auto& host : site.hosts) {
      if (!addresses.insert(host).second) {
        fail(source, (*array)[i], fmt::format("address {} used twice", host));
      }
    }
    topology.sites.push_back(std::move(site));
  }
  return topology;
}

Topology parse_topology_text(std::string_view text, std::string_view source) {
  try {
    const toml::table root = toml::parse(text, source);
    return parse_topology(root, source);
  } catch (const toml::parse_error& error) {
    throw ConfigError(fmt::format("{}:{}:{}: {}", source, error.source().begin.line,
                                  error.source().begin.column, error.description()));
  }
}

Topology load_topology(const std::string& path) {
  try {
    const toml::table root = toml::parse_file(path);
    return parse_topology(root, path);
  } catch (const toml::parse_error& error) {
    throw ConfigError(fmt::format("{}:{}:{}: {}", path, error.source().begin.line,
                                  error.source().begin.column, error.description()));
  }
}

}  // namespace hdstream::linkemu
