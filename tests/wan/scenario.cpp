#include "tests/wan/scenario.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "common/units.hpp"

namespace hdstream::wan {
namespace {

using linkemu::ConfigError;

[[noreturn]] void fail(std::string_view source, const toml::node& node, std::string_view what) {
  const auto& begin = node.source().begin;
  throw ConfigError(fmt::format("{}:{}:{}: {}", source, begin.line, begin.column, what));
}

std::string string_of(std::string_view source, const toml::node& node, std::string_view key) {
  if (auto value = node.value<std::string>()) return *value;
  fail(source, node, fmt::format("'{}' must be a string", key));
}

double number_of(std::string_view source, const toml::node& node, std::string_view key) {
  auto value = node.value<double>();
  if (!value || !(*value >= 0) || *value > 1e9) {
    fail(source, node, fmt::format("'{}' must be a non-negative number", key));
  }
  return *value;
}

std::size_t count_of(std::string_view source, const toml::node& node, std::string_view key,
                     std::int64_t max) {
  auto value = node.value<std::int64_t>();
  if (!value || *value < 1 || *value > max) {
    fail(source, node, fmt::format("'{}' must be an integer between 1 and {}", key, max));
  }
  return static_cast<std::size_t>(*value);
}

template <typename Parse>
auto unit_of(std::string_view source, const toml::node& node, std::string_view key, Parse parse) {
  const std::string text = string_of(source, node, key);
  try {
    return parse(text);
  } catch (const UnitError& error) {
    fail(source, node, fmt::format("'{}': {}", key, error.what()));
  }
}

Expectation parse_expect(std::string_view source, const toml::table& table) {
  Expectation e;
  for (const auto& [key, value] : table) {
    if (key == "zero_drops") {
      auto flag = value.value<bool>();
      if (!flag) fail(source, value, "'zero_drops' must be true or false");
      e.zero_drops = *flag;
    } else if (key == "min_mbps") {
      e.min_mbps = number_of(source, value, key.str());
    } else if (key == "at_least_run") {
      e.at_least_run = string_of(source, value, key.str());
    } else if (key == "at_least_factor") {
      e.at_least_factor = number_of(source, value, key.str());
    } else {
      fail(source, value, fmt::format("unknown key '{}' in [run.expect]", key.str()));
    }
  }
  if (e.at_least_run.empty() != (e.at_least_factor == 0)) {
    fail(source, table, "'at_least_run' and 'at_least_factor' go together");
  }
  return e;
}

PathCut parse_cut(std::string_view source, const toml::node& node) {
  const auto* table = node.as_table();
  if (!table)
    fail(source, node, "'cut' must be a table: { path = \"a\", at = \"4s\", length = \"10s\" }");
  PathCut cut;
  for (const auto& [key, value] : *table) {
    const std::string_view k = key.str();
    if (k == "path") {
      const auto path = string_of(source, value, k);
      if (path != "a" && path != "b") fail(source, value, "'path' must be \"a\" or \"b\"");
      cut.path = path == "a" ? linkemu::Path::a : linkemu::Path::b;
    } else if (k == "at") {
      cut.at = unit_of(source, value, k, parse_duration);
    } else if (k == "length") {
      cut.length = unit_of(source, value, k, parse_duration);
    } else {
      fail(source, value, fmt::format("unknown key '{}' in 'cut'", k));
    }
  }
  if (cut.path == linkemu::Path::invalid || cut.length.count() <= 0) {
    fail(source, node, "'cut' needs a 'path' and a 'length'");
  }
  return cut;
}

Run parse_run(std::string_view source, const toml::node& node) {
  const auto* table = node.as_table();
  if (!table) fail(source, node, "each [[run]] must be a table");
  Run run;
  for (const auto& [key, value] : *table) {
    const std::string_view k = key.str();
    if (k == "label") {
      run.label = string_of(source, value, k);
    } else if (k == "mode") {
      const auto mode = string_of(source, value, k);
      if (mode == "send") {
        run.mode = RunMode::send;
      } else if (mode == "bench") {
        run.mode = RunMode::bench;
      } else {
        fail(source, value, "'mode' must be \"send\" or \"bench\"");
      }
    } else if (k == "transport") {
      run.transport = string_of(source, value, k);
      if (run.transport != "tcp" && run.transport != "mtcp" && run.transport != "srt") {
        fail(source, value, "'transport' must be tcp, mtcp or srt");
      }
    } else if (k == "cc") {
      run.cc = string_of(source, value, k);
      if (run.cc != "bbr" && run.cc != "cubic" && run.cc != "reno") {
        fail(source, value, "'cc' must be bbr, cubic or reno");
      }
    } else if (k == "latency") {
      run.latency = unit_of(source, value, k, parse_duration);
    } else if (k == "conns") {
      run.conns = count_of(source, value, k, 16);
    } else if (k == "streams") {
      run.streams = count_of(source, value, k, 64);
    } else if (k == "processes") {
      run.processes = count_of(source, value, k, 50);
    } else if (k == "rate") {
      const auto text = string_of(source, value, k);
      run.rate_bps = text == "max" ? 0 : unit_of(source, value, k, parse_rate_bps);
    } else if (k == "duration") {
      run.duration = unit_of(source, value, k, parse_duration);
    } else if (k == "full_duration") {
      run.full_duration = unit_of(source, value, k, parse_duration);
    } else if (k == "seed_mbps") {
      run.seed_mbps = number_of(source, value, k);
    } else if (k == "protect") {
      auto flag = value.value<bool>();
      if (!flag) fail(source, value, "'protect' must be true or false");
      run.protect = *flag;
    } else if (k == "cut") {
      run.cut = parse_cut(source, value);
    } else if (k == "expect") {
      const auto* expect = value.as_table();
      if (!expect) fail(source, value, "'expect' must be a table");
      run.expect = parse_expect(source, *expect);
    } else {
      fail(source, value, fmt::format("unknown key '{}' in [[run]]", k));
    }
  }
  if (run.label.empty()) fail(source, node, "[[run]] needs a 'label'");
  if (run.mode == RunMode::invalid) fail(source, node, "[[run]] needs a 'mode'");
  if (run.mode == RunMode::send && run.rate_bps == 0)
    fail(source, node, "a send run needs a 'rate'");
  if (run.duration.count() <= 0) fail(source, node, "[[run]] needs a 'duration'");
  if (run.duration > std::chrono::minutes(10)) fail(source, node, "'duration' must be at most 10m");
  if (run.full_duration.count() == 0) run.full_duration = run.duration;
  if (run.conns > 0 && run.transport != "mtcp") fail(source, node, "'conns' is for mtcp runs");
  if (run.latency.count() > 0 && run.mode != RunMode::send)
    fail(source, node, "'latency' is for send runs");
  if (run.processes > run.streams) fail(source, node, "'processes' must not exceed 'streams'");
  if (run.cut && run.cut->at + run.cut->length >= run.duration) {
    fail(source, node, "the 'cut' must end before the run does ('duration')");
  }
  if (run.protect && run.mode != RunMode::send) fail(source, node, "'protect' is for send runs");
  if (run.protect && run.processes > 1) fail(source, node, "a 'protect' run has one process pair");
  return run;
}

Scenario parse_root(const toml::table& root, std::string_view source) {
  Scenario scenario;
  scenario.name = std::filesystem::path(std::string(source)).stem().string();
  for (const auto& [key, value] : root) {
    const std::string_view k = key.str();
    if (k == "title") {
      scenario.title = string_of(source, value, k);
    } else if (k == "seed") {
      scenario.seed = string_of(source, value, k);
    } else if (k == "distance_km") {
      scenario.distance_km = number_of(source, value, k);
    } else if (k == "short_scale") {
      scenario.short_scale = number_of(source, value, k);
      if (!(scenario.short_scale > 0 && scenario.short_scale <= 1)) {
        fail(source, value, "'short_scale' must be more than 0 and at most 1");
      }
    } else if (k != "link" && k != "path_b" && k != "site" && k != "run") {
      fail(source, value, fmt::format("unknown top-level key '{}'", k));
    }
  }
  scenario.topology = linkemu::parse_topology(root, source);
  const auto* runs = root.get("run");
  if (!runs || !runs->as_array() || runs->as_array()->empty()) {
    throw ConfigError(fmt::format("{}: no [[run]] tables", source));
  }
  for (const auto& node : *runs->as_array()) {
    Run run = parse_run(source, node);
    const auto& earlier = scenario.runs;
    if (std::any_of(earlier.begin(), earlier.end(),
                    [&](const Run& r) { return r.label == run.label; })) {
      fail(source, node, fmt::format("run label '{}' used twice", run.label));
    }
    if (!run.expect.at_least_run.empty() &&
        std::none_of(earlier.begin(), earlier.end(),
                     [&](const Run& r) { return r.label == run.expect.at_least_run; })) {
      fail(source, node,
           fmt::format("'at_least_run' names no earlier run: '{}'", run.expect.at_least_run));
    }
    const auto hosts =
        std::min(scenario.topology.sites[0].hosts.size(), scenario.topology.sites[1].hosts.size());
    if (run.processes > hosts) {
      fail(source, node,
           fmt::format("'processes' = {} but the sites have only {} host pair(s)", run.processes,
                       hosts));
    }
    const bool needs_path_b = run.protect || (run.cut && run.cut->path == linkemu::Path::b);
    if (needs_path_b && !scenario.topology.has(linkemu::Path::b)) {
      fail(source, node, "'protect' and a cut of path b need a [path_b] table");
    }
    scenario.runs.push_back(std::move(run));
  }
  return scenario;
}

}  // namespace

Scenario parse_scenario_text(std::string_view text, std::string_view source) {
  try {
    return parse_root(toml::parse(text, source), source);
  } catch (const toml::parse_error& error) {
    throw ConfigError(fmt::format("{}:{}:{}: {}", source, error.source().begin.line,
                                  error.source().begin.column, error.description()));
  }
}

Scenario load_scenario(const std::string& path) {
  try {
    return parse_root(toml::parse_file(path), path);
  } catch (const toml::parse_error& error) {
    throw ConfigError(fmt::format("{}:{}:{}: {}", path, error.source().begin.line,
                                  error.source().begin.column, error.description()));
  }
}

Scenario short_version(Scenario scenario) {
  const double scale = scenario.short_scale;
  const auto scaled = [scale](std::uint64_t value) {
    return static_cast<std::uint64_t>(std::llround(static_cast<double>(value) * scale));
  };
  for (linkemu::LinkProfile* link :
       {&scenario.topology.link, scenario.topology.path_b ? &*scenario.topology.path_b : nullptr}) {
    if (!link) continue;
    // A limited rate stays limited, and the queue still takes one packet.
    if (link->rate_bps != 0) link->rate_bps = std::max<std::uint64_t>(1, scaled(link->rate_bps));
    link->queue_bytes = std::max<std::uint64_t>(link->mtu_bytes, scaled(link->queue_bytes));
  }
  for (Run& run : scenario.runs) {
    run.rate_bps = scaled(run.rate_bps);  // 0 (a bench run's "max") stays unpaced
    run.expect.min_mbps *= scale;
  }
  return scenario;
}

}  // namespace hdstream::wan
