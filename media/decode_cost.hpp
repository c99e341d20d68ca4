// What decoding a clip costs this machine: CPU seconds a frame, on the calling thread's own CPU
// clock (so a busy neighbour does not inflate it), with the decoder a receiver runs (one thread).
// The demo sizes itself with it (app/demo_size.hpp).
//   const double seconds = decode_cpu_seconds_per_frame("bars.mov", 20);   // throws MediaError
#pragma once

#include <filesystem>

namespace hdstream {

// Decodes two frames to warm up (the decoder settles its IDCT after its first picture), then
// `frames` more (the clip loops), timed.
double decode_cpu_seconds_per_frame(const std::filesystem::path& clip, int frames);

}  // namespace hdstream
