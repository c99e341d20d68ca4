#include "pipeline/media_sources.hpp"

#include <fmt/format.h>

#include "pipeline/feed_sender.hpp"
#include "pipeline/media_provider.hpp"
#include "pipeline/synthetic.hpp"

namespace hdstream {

std::string substitute_stream(std::string text, std::uint16_t stream) {
  const std::string key = "{stream}";
  for (auto at = text.find(key); at != std::string::npos; at = text.find(key, at)) {
    const std::string number = std::to_string(stream);
    text.replace(at, key.size(), number);
    at += number.size();
  }
  return text;
}

std::vector<std::string> per_feed_specs(const std::vector<std::string>& specs, std::size_t streams,
                                        const std::string& fallback, std::string_view option) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < streams; ++i) {
    const std::string& spec = specs.empty()       ? fallback
                              : specs.size() == 1 ? specs[0]
                                                  : specs.at(std::min(i, specs.size() - 1));
    out.push_back(substitute_stream(spec, static_cast<std::uint16_t>(i)));
  }
  if (specs.size() > 1 && specs.size() != streams) {
    throw SpecError(
        fmt::format("{} given {} times for {} streams: give it once (use "
                    "{{stream}} for the feed number) or once per stream",
                    option, specs.size(), streams));
  }
  return out;
}

FeedSource make_feed_source(const std::string& spec, std::uint16_t stream,
                            const FeedDescriptor& preset, std::uint64_t synthetic_rate_bps,
                            const SoundSpec& sound) {
  const std::string where = fmt::format("--source (stream {})", stream);
  if (spec.empty()) throw SpecError(where + ": empty source");
  if (spec == "synthetic" || preset.codec == Codec::synthetic) {
    if (spec != "synthetic") {
      throw SpecError(
          fmt::format("{}: the synthetic format takes --source synthetic, not '{}' "
                      "(pick a video --format such as dnxhd220)",
                      where, spec));
    }
    FeedDescriptor feed = preset;
    if (feed.codec != Codec::synthetic) {
      throw SpecError(fmt::format("{}: synthetic frames need --format synthetic", where));
    }
    if (sound.from_gstreamer()) {
      throw SpecError(
          fmt::format("--audio-source (stream {}): synthetic frames carry no sound; "
                      "pick a video --format such as dnxhd220",
                      stream));
    }
    feed.bit_rate_bps = synthetic_rate_bps;
    return {std::make_unique<SyntheticSource>(stream, frame_bytes_for(feed)), feed,
            "synthetic frames"};
  }
  return media_provider().make_media_source(spec, sound, stream, preset);
}

}  // namespace hdstream
