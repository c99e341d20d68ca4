#include "protocol/audio_block.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "protocol/byte_order.hpp"
#include "protocol/feed_limits.hpp"

namespace hdstream {
namespace {
__extension__ using Wide = unsigned __int128;  // GCC and Clang: exact n x rate x den
}  // namespace

std::uint64_t audio_sample_at(const FeedDescriptor& feed, std::uint64_t frame_seq) {
  if (!feed.audio.present() || feed.frame_rate_num == 0) return 0;
  // 128-bit: n x 48000 x den overflows 64 bits after ~10^9 frames at 1001.
  const Wide scaled = Wide{frame_seq} * feed.audio.sample_rate * feed.frame_rate_den;
  return static_cast<std::uint64_t>(scaled / feed.frame_rate_num);
}

std::uint32_t audio_samples_in_frame(const FeedDescriptor& feed, std::uint64_t frame_seq) {
  return static_cast<std::uint32_t>(audio_sample_at(feed, frame_seq + 1) -
                                    audio_sample_at(feed, frame_seq));
}

std::size_t max_audio_block_bytes(const FeedDescriptor& feed) {
  if (!feed.audio.present() || feed.frame_rate_num == 0) return 0;
  const std::uint64_t most_samples =
      (std::uint64_t{feed.audio.sample_rate} * feed.frame_rate_den + feed.frame_rate_num - 1) /
      feed.frame_rate_num;
  return most_samples * feed.audio.bytes_per_sample() + kAudioTrailerBytes;
}

void append_audio_block(FrameBytes& frame, const AudioFormat& audio, std::uint64_t first_sample,
                        std::span<const std::byte> pcm) {
  const std::size_t at = frame.size();
  frame.resize(at + pcm.size() + kAudioTrailerBytes);
  std::copy(pcm.begin(), pcm.end(), frame.begin() + static_cast<std::ptrdiff_t>(at));
  ByteWriter w{std::span(frame).subspan(at + pcm.size())};
  w.put<std::uint32_t>(kAudioTrailerMagic);
  w.put<std::uint32_t>(static_cast<std::uint32_t>(pcm.size() / audio.bytes_per_sample()));
  w.put<std::uint64_t>(first_sample);
}

AudioBlock split_audio_block(std::span<const std::byte> frame, const FeedDescriptor& feed,
                             std::uint64_t frame_seq) {
  AudioBlock block;
  if (frame.size() < kAudioTrailerBytes) {
    block.error = fmt::format("a {}-byte frame has no room for its audio trailer", frame.size());
    return block;
  }
  ByteReader r(frame.last(kAudioTrailerBytes));
  std::uint32_t magic = 0, samples = 0;
  std::uint64_t first_sample = 0;
  r.get(magic);
  r.get(samples);
  r.get(first_sample);
  const std::uint32_t expected = audio_samples_in_frame(feed, frame_seq);
  const std::uint64_t expected_first = audio_sample_at(feed, frame_seq);
  if (magic != kAudioTrailerMagic) {
    block.error = "no audio trailer at the end of the frame";
  } else if (samples != expected || first_sample != expected_first) {
    block.error = fmt::format("frame {} carries samples {}+{} where the frame clock puts {}+{}",
                              frame_seq, first_sample, samples, expected_first, expected);
  } else if (const std::uint64_t pcm_bytes = std::uint64_t{samples} * feed.audio.bytes_per_sample();
             pcm_bytes > frame.size() - kAudioTrailerBytes) {
    block.error = fmt::format("{} bytes of audio in a {}-byte frame", pcm_bytes, frame.size());
  } else {
    const std::size_t picture_bytes = frame.size() - kAudioTrailerBytes - pcm_bytes;
    if (const std::size_t raw = raw_frame_bytes(feed); raw != 0 && picture_bytes != raw) {
      block.error = fmt::format("a {}-byte picture where {} {}x{} is {} bytes", picture_bytes,
                                to_string(feed.codec), feed.width, feed.height, raw);
      return block;
    }
    block.picture = frame.first(picture_bytes);
    block.pcm = frame.subspan(picture_bytes, pcm_bytes);
    block.samples = samples;
    block.first_sample = first_sample;
  }
  return block;
}

}  // namespace hdstream
