// The file:, bars and GStreamer sources of pipeline/media_sources.hpp: they need libav* and
// GStreamer, so they live in hdstream::pipeline_media and make_feed_source reaches them through
// the media module (media_module/media_module.hpp).
//   FeedSource s = make_media_source("file:clip.mov", 0, preset);   // throws SpecError
#pragma once

#include <cstdint>
#include <string>

#include "pipeline/media_sources.hpp"

namespace hdstream {

// Builds and prepares (probes, parses, prerolls) the source. Throws SpecError.
FeedSource make_media_source(const std::string& spec, std::uint16_t stream,
                             const FeedDescriptor& preset);

}  // namespace hdstream
