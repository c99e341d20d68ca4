#include "presets/preset_store.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <toml++/toml.h>

namespace hdstream {
namespace {

// Keys each kind of entry may have; anything else is a typo worth an error.
const std::map<PresetKind, std::vector<std::string_view>>& known_keys() {
  static const std::map<PresetKind, std::vector<std::string_view>> keys{
      {PresetKind::destination,
       {"description", "hosts", "hosts_b", "bind_a", "bind_b", "port", "transport", "conns",
        "streams", "rate", "format", "rtt", "link_rate", "mtu", "distance_km", "latency",
        "key_file", "cc"}},
      {PresetKind::format,
       {"description", "codec", "width", "height", "frame_rate", "rate", "source"}},
      {PresetKind::profile,
       {"description", "destination", "format", "streams", "rate", "transport", "conns"}},
  };
  return keys;
}

// A destination's acceptance criteria (`[destinations.NAME.sla]`).
constexpr std::array<std::string_view, 6> kSlaKeys{
    "min_rate",       "max_delay",        "max_delay_variation",
    "max_loss_ratio", "min_availability", "severely_errored"};

std::string where(const toml::node& node, const std::string& source) {
  return fmt::format("{}:{}", source, node.source().begin.line);
}

PresetValue convert(const toml::node& node, const std::string& source, std::string_view key) {
  PresetValue out;
  out.origin = where(node, source);
  if (auto text = node.value_exact<std::string>()) {
    out.value = *text;
  } else if (auto integer = node.value_exact<std::int64_t>()) {
    out.value = *integer;
  } else if (auto real = node.value_exact<double>()) {
    out.value = *real;
  } else if (auto flag = node.value_exact<bool>()) {
    out.value = *flag;
  } else if (const auto* array = node.as_array()) {
    std::vector<std::string> items;
    for (const auto& item : *array) {
      auto text_item = item.value_exact<std::string>();
      if (!text_item) {
        throw PresetError(
            fmt::format("{}: '{}' must be a list of strings", where(item, source), key));
      }
      items.push_back(*text_item);
    }
    out.value = std::move(items);
  } else {
    throw PresetError(fmt::format("{}: '{}' has an unsupported type", out.origin, key));
  }
  return out;
}

}  // namespace

std::string_view to_string(PresetKind kind) {
  switch (kind) {
    case PresetKind::destination:
      return "destination";
    case PresetKind::format:
      return "format";
    case PresetKind::profile:
      return "profile";
  }
  return "preset";
}

std::string PresetValue::text() const {
  return std::visit(
      [](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>) {
          return fmt::format("\"{}\"", v);
        } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
          return fmt::format("[\"{}\"]", fmt::join(v, "\", \""));
        } else {
          return fmt::format("{}", v);
        }
      },
      value);
}

const PresetValue* PresetEntry::get(std::string_view key) const {
  auto it = values.find(std::string(key));
  return it == values.end() ? nullptr : &it->second;
}

std::map<std::string, PresetEntry>& PresetStore::table(PresetKind kind) {
  return kind == PresetKind::destination ? destinations_
         : kind == PresetKind::format    ? formats_
                                         : profiles_;
}

const std::map<std::string, PresetEntry>& PresetStore::table(PresetKind kind) const {
  return const_cast<PresetStore*>(this)->table(kind);
}

namespace {

struct Setting {
  PresetKind kind;
  std::string entry;
  std::string key;
  PresetValue value;
};

// A destination's `[destinations.NAME.sla]` table (its acceptance criteria): each key becomes
// the destination's `sla.KEY`, so layers override single criteria like any other key.
void append_sla(std::vector<Setting>& settings, const std::string& destination,
                const toml::node& node, const std::string& source) {
  const auto* table = node.as_table();
  if (!table) {
    throw PresetError(fmt::format("{}: 'sla' of '{}' must be a table ([destinations.{}.sla])",
                                  where(node, source), destination, destination));
  }
  for (auto&& [key, value] : *table) {
    if (std::find(kSlaKeys.begin(), kSlaKeys.end(), key.str()) == kSlaKeys.end()) {
      throw PresetError(fmt::format("{}: unknown key '{}' in the sla of '{}' (known: {})",
                                    where(value, source), key.str(), destination,
                                    fmt::join(kSlaKeys, ", ")));
    }
    settings.push_back(Setting{PresetKind::destination, destination,
                               fmt::format("sla.{}", key.str()),
                               convert(value, source, key.str())});
  }
}

// Validates a parsed document and flattens it into settings, in file order.
std::vector<Setting> settings_of(const toml::table& document, const std::string& source) {
  std::vector<Setting> settings;
  for (auto&& [section, node] : document) {
    const std::string section_name(section.str());
    PresetKind kind;
    if (section_name == "destinations") {
      kind = PresetKind::destination;
    } else if (section_name == "formats") {
      kind = PresetKind::format;
    } else if (section_name == "profiles") {
      kind = PresetKind::profile;
    } else {
      throw PresetError(
          fmt::format("{}: unknown section '{}' (expected destinations, formats or profiles)",
                      where(node, source), section_name));
    }
    const auto* entries = node.as_table();
    if (!entries) {
      throw PresetError(fmt::format("{}: '{}' must be a table of named entries",
                                    where(node, source), section_name));
    }
    const auto& allowed = known_keys().at(kind);
    for (auto&& [name, entry_node] : *entries) {
      const auto* entry = entry_node.as_table();
      if (!entry) {
        throw PresetError(fmt::format("{}: {} '{}' must be a table", where(entry_node, source),
                                      to_string(kind), name.str()));
      }
      for (auto&& [key, value] : *entry) {
        if (kind == PresetKind::destination && key.str() == "sla") {
          append_sla(settings, std::string(name.str()), value, source);
          continue;
        }
        if (std::find(allowed.begin(), allowed.end(), key.str()) == allowed.end()) {
          throw PresetError(fmt::format("{}: unknown key '{}' in {} '{}' (known: {})",
                                        where(value, source), key.str(), to_string(kind),
                                        name.str(), fmt::join(allowed, ", ")));
        }
        settings.push_back(Setting{kind, std::string(name.str()), std::string(key.str()),
                                   convert(value, source, key.str())});
      }
    }
  }
  return settings;
}

toml::table parse_document(std::string_view text, const std::string& source) {
  try {
    return toml::parse(text, source);
  } catch (const toml::parse_error& error) {
    throw PresetError(
        fmt::format("{}:{}: {}", source, error.source().begin.line, error.description()));
  }
}

}  // namespace

void PresetStore::load_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw PresetError(fmt::format("{}: cannot read", path.string()));
  std::stringstream text;
  text << in.rdbuf();
  load_text(text.str(), path.string());
}

void PresetStore::load_text(std::string_view text, const std::string& source_name) {
  // Validate the whole file before merging any of it: a bad file changes nothing.
  auto settings = settings_of(parse_document(text, source_name), source_name);
  for (auto& setting : settings) {
    PresetEntry& entry = table(setting.kind)[setting.entry];
    entry.name = setting.entry;
    entry.values[setting.key] = std::move(setting.value);
  }
  files_.push_back(source_name);
}

const PresetEntry* PresetStore::find(PresetKind kind, std::string_view name) const {
  const auto& entries = table(kind);
  auto it = entries.find(std::string(name));
  return it == entries.end() ? nullptr : &it->second;
}

std::vector<std::string> PresetStore::names(PresetKind kind) const {
  std::vector<std::string> out;
  for (const auto& [name, entry] : table(kind)) out.push_back(name);
  return out;
}

std::filesystem::path installed_presets() {
  // An installed binary finds its presets where `cmake --install` put them relative to the
  // binary (whatever the prefix); a build tree uses the checkout's.
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    auto installed =
        (exe.parent_path() / HDSTREAM_INSTALLED_PRESETS_FROM_BINDIR).lexically_normal();
    if (std::filesystem::is_regular_file(installed, ec)) return installed;
  }
  return HDSTREAM_PRESETS_FILE;
}

std::vector<std::filesystem::path> preset_search_path(
    const std::optional<std::filesystem::path>& config_file) {
  std::vector<std::filesystem::path> path{installed_presets(), "/etc/hdstream"};
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg) {
    path.emplace_back(std::filesystem::path(xdg) / "hdstream");
  } else if (const char* home = std::getenv("HOME"); home && *home) {
    path.emplace_back(std::filesystem::path(home) / ".config" / "hdstream");
  }
  if (config_file) path.push_back(*config_file);
  return path;
}

PresetStore load_presets(const std::optional<std::filesystem::path>& config_file) {
  PresetStore store;
  if (config_file && !std::filesystem::is_regular_file(*config_file)) {
    throw PresetError(fmt::format("--config: cannot read '{}'", config_file->string()));
  }
  for (const auto& entry : preset_search_path(config_file)) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(entry, ec)) {
      store.load_file(entry);
      continue;
    }
    if (!std::filesystem::is_directory(entry, ec)) continue;
    std::vector<std::filesystem::path> files;
    for (const auto& file : std::filesystem::directory_iterator(entry, ec)) {
      if (file.path().extension() == ".toml") files.push_back(file.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& file : files) store.load_file(file);
  }
  return store;
}

}  // namespace hdstream
