// Layered TOML presets (destinations, formats, profiles) with the origin of every value.
//   PresetStore store;  store.load_file("presets/hdstream.toml", "installed");
//   const PresetEntry* portland = store.find(PresetKind::destination, "portland");
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace hdstream {

// A preset file that cannot be used: what() is one line, "FILE:LINE: what is wrong".
class PresetError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class PresetKind : std::uint8_t { destination = 1, format = 2, profile = 3 };
std::string_view to_string(PresetKind kind);

// One key of a preset entry, as finally in force.
struct PresetValue {
  std::variant<std::string, std::int64_t, double, bool, std::vector<std::string>> value;
  std::string origin;        // "path:line"
  std::string text() const;  // as written in TOML, for `presets show`
};

struct PresetEntry {
  std::string name;
  std::map<std::string, PresetValue> values;

  const PresetValue* get(std::string_view key) const;
};

class PresetStore {
 public:
  // Merges a file over what is loaded (same-named entries are merged key by key). Unknown
  // top-level tables and unknown keys are errors, so typos do not pass silently.
  void load_file(const std::filesystem::path& path);
  void load_text(std::string_view text, const std::string& source_name);

  const PresetEntry* find(PresetKind kind, std::string_view name) const;
  std::vector<std::string> names(PresetKind kind) const;
  const std::vector<std::string>& files() const { return files_; }

 private:
  std::map<std::string, PresetEntry>& table(PresetKind kind);
  const std::map<std::string, PresetEntry>& table(PresetKind kind) const;

  std::map<std::string, PresetEntry> destinations_;
  std::map<std::string, PresetEntry> formats_;
  std::map<std::string, PresetEntry> profiles_;
  std::vector<std::string> files_;
};

// The presets file shipped with hdstream (installed copy, else the source checkout's).
std::filesystem::path installed_presets();

// Where presets are looked for, lowest precedence first: the installed presets/, /etc/hdstream/,
// $XDG_CONFIG_HOME/hdstream/ (or ~/.config/hdstream/), then `config_file` if given.
std::vector<std::filesystem::path> preset_search_path(
    const std::optional<std::filesystem::path>& config_file);

// Loads every *.toml along the search path. Throws PresetError.
PresetStore load_presets(const std::optional<std::filesystem::path>& config_file);

}  // namespace hdstream
