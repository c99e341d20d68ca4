#include "media/decode_cost.hpp"

#include <ctime>
#include <vector>

#include "media/file_reader.hpp"
#include "media/media_error.hpp"
#include "media/video_decoder.hpp"

namespace hdstream {
namespace {

double thread_cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

}  // namespace

double decode_cpu_seconds_per_frame(const std::filesystem::path& clip, int frames) {
  if (frames <= 0) throw MediaError("decode cost: frames must be positive");
  FileReader reader(clip.string(), FeedDescriptor{});
  VideoDecoder decoder(reader.feed(), /*threads=*/1);
  std::vector<std::byte> frame;
  constexpr int kWarmUp = 2;
  double decoding = 0;
  for (int i = 0; i < kWarmUp + frames; ++i) {
    reader.read(frame);  // not timed: reading the file is the sender's cost, not the decoder's
    const double before = thread_cpu_seconds();
    decoder.decode(frame);
    if (i >= kWarmUp) decoding += thread_cpu_seconds() - before;
  }
  return decoding / frames;
}

}  // namespace hdstream
