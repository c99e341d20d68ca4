#include "media/media_error.hpp"

#include <cstdlib>
#include <mutex>

#include <fmt/format.h>

extern "C" {
#include <libavutil/error.h>
#include <libavutil/log.h>
}

namespace hdstream {

std::string av_error_text(int averror) {
  char text[AV_ERROR_MAX_STRING_SIZE] = {};
  av_strerror(averror, text, sizeof text);
  return text;
}

void quiet_libav() {
  static std::once_flag once;
  std::call_once(once, [] {
    const char* keep = std::getenv("HDSTREAM_LIBAV_LOG");
    if (!keep || std::string_view(keep) != "1") av_log_set_level(AV_LOG_FATAL);
  });
}

int av_check(int averror, std::string_view what) {
  if (averror < 0) throw MediaError(fmt::format("{}: {}", what, av_error_text(averror)));
  return averror;
}

}  // namespace hdstream
