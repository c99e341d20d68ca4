// libFuzzer target: preset files (TOML) through PresetStore::load_text and the resolvers. Only
// the errors the CLI turns into one clear line may escape: anything else is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/endpoint.hpp"
#include "common/units.hpp"
#include "presets/presets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace hdstream;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  PresetStore store;
  try {
    store.load_text(text, "fuzz.toml");
  } catch (const PresetError&) {
    return 0;
  }
  for (PresetKind kind : {PresetKind::destination, PresetKind::format, PresetKind::profile}) {
    for (const std::string& name : store.names(kind)) {
      try {
        if (kind == PresetKind::destination) {
          auto destination = resolve_destination(store, name);
          for (std::size_t i = 0; i < 4; ++i) (void)destination.endpoint_for(i);
        } else if (kind == PresetKind::format) {
          (void)resolve_format(store, name);
        } else {
          (void)resolve_profile(store, name);
        }
      } catch (const PresetError&) {
      } catch (const EndpointError&) {
      } catch (const UnitError&) {
      }
    }
  }
  return 0;
}
