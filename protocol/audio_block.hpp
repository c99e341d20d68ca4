// A frame's embedded sound (docs/PROTOCOL.md "Audio"): on a feed whose HELLO announces audio,
// every frame is its picture, then the PCM that plays during it, then a 16-byte trailer. The
// samples follow the feed's frame clock exactly: frame n carries samples
// [audio_sample_at(n), audio_sample_at(n + 1)), so 29.97 fps at 48 kHz is 1601 or 1602 a frame
// in a five-frame cadence, and a frame that never arrives is silence of a known length.
//   append_audio_block(frame->data, feed.audio, audio_sample_at(feed, seq), pcm);   // sender
//   auto block = split_audio_block(frame->data, feed, seq);                          // receiver
//   if (!block.error.empty()) ...;  decode(block.picture);  play(block.pcm);
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "protocol/frame.hpp"
#include "protocol/handshake.hpp"

namespace hdstream {

inline constexpr std::uint32_t kAudioTrailerMagic = 0x48444155;  // "HDAU"
inline constexpr std::size_t kAudioTrailerBytes = 16;

// The first sample of frame `frame_seq` on the feed's clock: floor(n x rate x den / num).
std::uint64_t audio_sample_at(const FeedDescriptor& feed, std::uint64_t frame_seq);
// Samples (per channel) frame `frame_seq` carries.
std::uint32_t audio_samples_in_frame(const FeedDescriptor& feed, std::uint64_t frame_seq);
// PCM bytes plus trailer of the largest audio block a frame of this feed carries; 0 without
// audio.
std::size_t max_audio_block_bytes(const FeedDescriptor& feed);

// One sample as carried: `width` (2 or 3) little-endian bytes, signed.
inline std::int32_t pcm_sample(const std::byte* at, std::size_t width) {
  std::uint32_t raw = 0;
  for (std::size_t b = 0; b < width; ++b) raw |= std::to_integer<std::uint32_t>(at[b]) << (8 * b);
  const int shift = 32 - 8 * static_cast<int>(width);
  return static_cast<std::int32_t>(raw << shift) >> shift;  // sign-extended
}

// Appends `pcm` (interleaved, little-endian, whole sample frames) and the trailer.
void append_audio_block(FrameBytes& frame, const AudioFormat& audio, std::uint64_t first_sample,
                        std::span<const std::byte> pcm);

struct AudioBlock {
  std::span<const std::byte> picture;  // the frame without its sound
  std::span<const std::byte> pcm;      // `samples` x channels, interleaved
  std::uint32_t samples = 0;
  std::uint64_t first_sample = 0;
  std::string error;  // empty when the block is what the HELLO and the frame clock say
};

// Splits a received frame of feed `feed` (with audio) whose sequence number is `frame_seq`.
// Refuses (error set, spans empty) a trailer without its magic, a sample count or first sample
// other than the frame clock's, or a block longer than the frame; a raw picture must then be
// exactly its format's size.
AudioBlock split_audio_block(std::span<const std::byte> frame, const FeedDescriptor& feed,
                             std::uint64_t frame_seq);

}  // namespace hdstream
