// libFuzzer target: a received frame's audio block (protocol/audio_block.hpp) under any feed a
// valid HELLO may announce. What splits must lie inside the frame, be exactly what the frame
// clock gives that frame, and re-append to the same bytes; what does not split gives nothing.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "protocol/audio_block.hpp"
#include "protocol/feed_limits.hpp"
#include "protocol/handshake.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace hdstream;
  constexpr std::size_t kParams = 12;
  if (size < kParams) return 0;
  FeedDescriptor feed;
  feed.codec = static_cast<Codec>(2 + data[0] % 3);  // dnxhd, v210, uyvy
  feed.width = static_cast<std::uint16_t>(2 * (1 + data[1] % 64));
  feed.height = static_cast<std::uint16_t>(1 + data[2] % 32);
  feed.frame_rate_num = 1 + (std::uint32_t{data[3]} << 8 | data[4]);
  feed.frame_rate_den = 1u + data[5];  // down to 1/256 fps: validate_hello must refuse those
  feed.bit_rate_bps = 1'000'000;
  feed.audio = AudioFormat{static_cast<std::uint8_t>(1 + data[6] % kMaxAudioChannels),
                           static_cast<std::uint8_t>(data[6] & 0x80 ? 24 : 16), kAudioSampleRate};
  std::uint64_t seq = 0;
  for (std::size_t i = 7; i < kParams; ++i) seq = seq << 8 | data[i];
  Hello hello;
  hello.feed = feed;
  hello.chunk_bytes = 65536;
  if (!validate_hello(hello).empty()) return 0;

  const auto frame = std::as_bytes(std::span(data + kParams, size - kParams));
  const AudioBlock block = split_audio_block(frame, feed, seq);
  if (!block.error.empty()) {
    if (!block.picture.empty() || !block.pcm.empty()) __builtin_trap();
    return 0;
  }
  if (block.picture.data() != frame.data() ||
      block.picture.size() + block.pcm.size() + kAudioTrailerBytes != frame.size() ||
      block.pcm.data() != frame.data() + block.picture.size() ||
      block.samples != audio_samples_in_frame(feed, seq) ||
      block.first_sample != audio_sample_at(feed, seq) ||
      block.pcm.size() != std::size_t{block.samples} * feed.audio.bytes_per_sample() ||
      block.pcm.size() + kAudioTrailerBytes > max_audio_block_bytes(feed)) {
    __builtin_trap();
  }
  FrameBytes again(block.picture.begin(), block.picture.end());
  append_audio_block(again, feed.audio, block.first_sample, block.pcm);
  if (!std::equal(again.begin(), again.end(), frame.begin(), frame.end())) __builtin_trap();
  return 0;
}
