#include "media/recording_layout.hpp"

#include <string>
#include <string_view>

extern "C" {
#include <libavformat/avformat.h>
}

namespace hdstream {

void add_recording_layout(AVDictionary** options, const AVFormatContext& format) {
  // What the muxer has written reaches the kernel with each frame (and so outlives the process),
  // instead of waiting in the 32 KiB I/O buffer for the next write: without it a MOV's last
  // finished fragment lacked its last frame's tail for a second after the fragment was done.
  av_dict_set(options, "flush_packets", "1", 0);
  // libavformat's "mov" muxer (.mov); "mp4" takes the same flags.
  const std::string_view name = format.oformat->name;
  if (name != "mov" && name != "mp4") return;
  // delay_moov: the index at the start describes no samples, each fragment its own; it is
  // written with the first fragment, when the first timestamps are known, so that a recording
  // whose first frames never came starts its pictures where they belong (an edit list). With
  // empty_moov the muxer moved the first picture to 0 (AudioGapsWan, frame 1 lost).
  // default_base_moof: each fragment's offsets count from itself (as ISO BMFF readers expect).
  // Not frag_keyframe: every frame of an intra codec is a key frame, and a fragment per frame
  // would cost a header per frame.
  av_dict_set(options, "movflags", "+delay_moov+default_base_moof", 0);
  // The edit list counts in the movie's timescale (1000 by default: a frame of 1001/30000 s
  // would start 0.37 ms early); the picture's own makes it exact.
  for (unsigned i = 0; i < format.nb_streams; ++i) {
    const AVStream& stream = *format.streams[i];
    if (stream.codecpar->codec_type == AVMEDIA_TYPE_VIDEO && stream.time_base.den > 0) {
      av_dict_set_int(options, "movie_timescale", stream.time_base.den, 0);
      break;
    }
  }
  av_dict_set_int(options, "frag_duration",
                  std::chrono::duration_cast<std::chrono::microseconds>(kRecordingFragment).count(),
                  0);
  av_dict_set_int(options, "frag_size", kRecordingFragmentBytes, 0);
}

}  // namespace hdstream
