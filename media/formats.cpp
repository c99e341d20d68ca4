#include "media/formats.hpp"

#include <fmt/format.h>

namespace hdstream {

bool is_compressed(Codec codec) {
  return codec == Codec::dnxhd;
}
bool is_video(Codec codec) {
  return codec == Codec::dnxhd || codec == Codec::v210 || codec == Codec::uyvy;
}

std::string raw_caps_for(const FeedDescriptor& feed) {
  const char* format = feed.codec == Codec::v210   ? "v210"
                       : feed.codec == Codec::uyvy ? "UYVY"
                                                   : "Y42B";
  return fmt::format(
      "video/x-raw,format={},width={},height={},framerate={}/{},"
      "interlace-mode=progressive,pixel-aspect-ratio=1/1",
      format, feed.width, feed.height, feed.frame_rate_num, feed.frame_rate_den);
}

}  // namespace hdstream
