// The one error type of media/: libav's AVERROR codes and GStreamer's GError become MediaError
// here, at the wrapper edge, with one line saying what failed and, when we know it, the fix.
//   av_check(avcodec_open2(ctx, codec, nullptr), "open the DNxHD decoder");  // throws MediaError
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace hdstream {

class MediaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// libav's text for an AVERROR code ("Invalid data found when processing input").
std::string av_error_text(int averror);

// libav prints to stderr on its own; we report its errors through MediaError instead. Call once
// before using libav (every wrapper here does); HDSTREAM_LIBAV_LOG=1 keeps libav's own lines.
void quiet_libav();

// Throws MediaError("<what>: <libav text>") when `averror` < 0; returns it otherwise.
int av_check(int averror, std::string_view what);

}  // namespace hdstream
