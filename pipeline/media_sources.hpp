// Sources of real video for a feed, picked by a --source spec:
//   "synthetic"                  verifiable pseudo-random frames (pipeline/synthetic.hpp)
//   "file:PATH"                  a clip (DNxHD/v210/UYVY in MOV/MXF/MKV/raw), looped, as it is
//   "bars"                       a scrolling-bars clip for the format, made once and cached
//   anything else                a GStreamer launch description ("videotestsrc pattern=ball")
//                                whose raw frames are encoded to DNxHD or sent raw
//   FeedSource s = make_feed_source("file:clip.mov", 0, preset.feed, 270'000'000);
//   FeedSource t = make_feed_source("bars", 0, preset.feed, 0, {"audiotestsrc wave=sine", 8});
//   s.source->start();  ...  s.feed  // the descriptor to announce in HELLO
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "pipeline/source.hpp"
#include "protocol/handshake.hpp"

namespace hdstream {

// A --source/--output spec that cannot work here: one line naming what to fix.
class SpecError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Where a feed's sound comes from (--audio-source, --audio-channels).
struct SoundSpec {
  // "": the source's own (a file: clip's audio track; none for the others); "none": no sound;
  // anything else: a GStreamer launch description ("audiotestsrc wave=sine", "alsasrc").
  std::string description;
  std::uint8_t channels = 2;  // of a GStreamer description's sound, 24-bit
  bool from_gstreamer() const { return !description.empty() && description != "none"; }
};

struct FeedSource {
  std::unique_ptr<FrameSource> source;
  FeedDescriptor feed;  // what this source really sends (a file's own size and rate)
  std::string summary;  // one line for the log: "file x.mov (DNxHD pass-through)"
};

// Replaces every "{stream}" in `text` with the stream number.
std::string substitute_stream(std::string text, std::uint16_t stream);

// The spec for each of `streams` feeds: none -> `fallback` for all; one -> the same for all
// (with {stream} substituted); N -> one each. Throws SpecError otherwise.
std::vector<std::string> per_feed_specs(const std::vector<std::string>& specs, std::size_t streams,
                                        const std::string& fallback,
                                        std::string_view option = "--source");

// Builds and prepares (probes, parses, prerolls) the source, so a bad spec fails here, before
// anything is sent. `preset` is the format's descriptor; `synthetic_rate_bps` sizes synthetic
// frames. Anything but synthetic comes from the media provider (pipeline/media_provider.hpp),
// loaded here the first time. Throws SpecError.
FeedSource make_feed_source(const std::string& spec, std::uint16_t stream,
                            const FeedDescriptor& preset, std::uint64_t synthetic_rate_bps,
                            const SoundSpec& sound = {});

}  // namespace hdstream
