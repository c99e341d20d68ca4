#include "media/decode_cost.hpp"

#include <vector>

#include "common/clock.hpp"
#include "media/file_reader.hpp"
#include "media/media_error.hpp"
#include "media/video_decoder.hpp"

namespace hdstream {
double decode_cpu_seconds_per_frame(const std::filesystem::path& clip, int frames) {
  if (frames <= 0) throw MediaError("decode cost: frames must be positive");
  FileReader reader(clip.string(), FeedDescriptor{});
  VideoDecoder decoder(reader.feed(), /*threads=*/1);
  FrameBytes frame;
  constexpr int kWarmUp = 2;
  double decoding = 0;
  for (int i = 0; i < kWarmUp + frames; ++i) {
    reader.read(frame);  // not timed: reading the file is the sender's cost, not the decoder's
    const double before = cpu_clock_seconds(CLOCK_THREAD_CPUTIME_ID);
    decoder.decode(frame);
    if (i >= kWarmUp) decoding += cpu_clock_seconds(CLOCK_THREAD_CPUTIME_ID) - before;
  }
  return decoding / frames;
}

}  // namespace hdstream
