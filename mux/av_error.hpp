// libav error codes stop here: converted once into one line of text for our logs.
//   if (rc < 0) log->warn("demux: {}", av_error_text(rc));
#pragma once

#include <string>

extern "C" {
#include <libavutil/error.h>
}

namespace hdstream {

inline std::string av_error_text(int code) {
  char text[AV_ERROR_MAX_STRING_SIZE] = {};
  av_strerror(code, text, sizeof text);
  return text;
}

}  // namespace hdstream
