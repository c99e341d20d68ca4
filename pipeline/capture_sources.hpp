// The file:, bars and GStreamer sources of pipeline/media_sources.hpp: they need libav* and
// GStreamer, so they live in hdstream::pipeline_media and make_feed_source reaches them through
// the media provider the media module registers (pipeline/media_provider.hpp).
//   FeedSource s = make_media_source("file:clip.mov", {}, 0, preset);   // throws SpecError
#pragma once

#include <cstdint>
#include <string>

#include "pipeline/media_sources.hpp"

namespace hdstream {

// Builds and prepares (probes, parses, prerolls) the source and its sound. Throws SpecError.
FeedSource make_media_source(const std::string& spec, const SoundSpec& sound, std::uint16_t stream,
                             const FeedDescriptor& preset);

// The picture source alone (a file: clip keeps its own sound when `sound` leaves it).
FeedSource make_picture_source(const std::string& spec, const SoundSpec& sound,
                               std::uint16_t stream, const FeedDescriptor& preset);

// `feed` with `audio`: its bit rate grows by the sound's (every frame's PCM and trailer).
FeedDescriptor with_sound(FeedDescriptor feed, const AudioFormat& audio);

}  // namespace hdstream
