// libav error codes stop here, as in media/: mux/ uses media's one conversion (MediaError,
// av_check, av_error_text) rather than a second copy of it.
//   if (rc < 0) log->warn("demux: {}", av_error_text(rc));
//   av_check(avformat_write_header(format, nullptr), "start the MPEG-TS stream");  // MediaError
#pragma once

#include "media/media_error.hpp"
