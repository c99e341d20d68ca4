// How a recording is laid out so that it stays readable up to about its last second when the
// process dies (kill -9, the OOM killer, a power cut), for every recording writer (media/
// FileWriter, mux/TsRecording):
// Every container: what the muxer has written leaves the process with each frame.
// - .mov: fragmented (an index of no samples, written with the first fragment, then a fragment
//   with its own index every second, or every kRecordingFragmentBytes of a faster feed); a
//   plain MOV's only index is written at the end, and a file without it is unreadable ("moov
//   atom not found").
// - .mkv: as libavformat writes it (clusters, each readable without the cues at the end).
// - .mxf: as libavformat writes it, which has no option for it: the header partition stays
//   "open incomplete" and the index and footer are written at the end. ffmpeg reads the
//   essence of a killed recording all the same (tests/app/recording_test.cpp measures it);
//   stricter MXF readers may need the file rewrapped (ffmpeg -i in.mxf -c copy out.mxf).
//   AVDictionary* options = nullptr;
//   add_recording_layout(&options, *format);   // then avformat_write_header(format,
//   &options)
#pragma once

#include <chrono>
#include <cstdint>

struct AVDictionary;
struct AVFormatContext;

namespace hdstream {

// What a killed recording loses at most: the fragment being written (1 s keeps the index's
// overhead under a thousandth of a DNxHD 220 recording), and no more bytes than this (a
// fragment is held in memory until it is written whole: 32 MiB is a second of DNxHD 220,
// a quarter of a second of uncompressed 1080 UYVY).
inline constexpr std::chrono::seconds kRecordingFragment{1};
inline constexpr std::int64_t kRecordingFragmentBytes = 32ll << 20;

// Adds the muxer options that lay `format`'s files out as above (none for formats that need
// none). Call with its streams added, before avformat_write_header.
void add_recording_layout(AVDictionary** options, const AVFormatContext& format);

}  // namespace hdstream
