// What each feed codec means to GStreamer and libav: the raw frames a source must deliver, the
// size of an uncompressed frame, whether the format needs an encoder.
//   std::string caps = raw_caps_for(feed);   // "video/x-raw,format=Y42B,width=1920,..."
#pragma once

#include <cstddef>
#include <string>

#include "protocol/feed_limits.hpp"
#include "protocol/handshake.hpp"

namespace hdstream {

// DNxHD is encoded; v210 and UYVY travel as they are; synthetic is not video.
bool is_compressed(Codec codec);
bool is_video(Codec codec);

// GStreamer caps of the raw frames a source feeds us for this descriptor: Y42B (8-bit 4:2:2
// planar, the DNxHD 220 encoder's input), v210, or UYVY, at the feed's size and frame rate.
std::string raw_caps_for(const FeedDescriptor& feed);

// raw_frame_bytes(feed), the size of an uncompressed frame, is in protocol/feed_limits.hpp: a
// receiver bounds raw frames by it.

}  // namespace hdstream
