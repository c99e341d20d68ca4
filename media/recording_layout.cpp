#include "media/recording_layout.hpp"

#include <string>
#include <string_view>

extern "C" {
#include <libavformat/avformat.h>
}

namespace hdstream {

void add_recording_layout(AVDictionary** options, const AVOutputFormat& container) {
  // What the muxer has written reaches the kernel with each frame (and so outlives the process),
  // instead of waiting in the 32 KiB I/O buffer for the next write: without it a MOV's last
  // finished fragment lacked its last frame's tail for a second after the fragment was done.
  av_dict_set(options, "flush_packets", "1", 0);
  // libavformat's "mov" muxer (.mov); "mp4" takes the same flags.
  const std::string_view name = container.name;
  if (name != "mov" && name != "mp4") return;
  // empty_moov: the index at the start describes no samples, each fragment its own.
  // default_base_moof: each fragment's offsets count from itself (as ISO BMFF readers expect).
  // Not frag_keyframe: every frame of an intra codec is a key frame, and a fragment per frame
  // would cost a header per frame.
  av_dict_set(options, "movflags", "+empty_moov+default_base_moof", 0);
  av_dict_set_int(options, "frag_duration",
                  std::chrono::duration_cast<std::chrono::microseconds>(kRecordingFragment).count(),
                  0);
  av_dict_set_int(options, "frag_size", kRecordingFragmentBytes, 0);
}

}  // namespace hdstream
