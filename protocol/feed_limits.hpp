// What a receiver may be asked to hold for one feed, decided once from its HELLO: the largest
// frame the announced feed can need, and the bounds every peer-supplied HELLO quantity must
// respect (checked by validate_hello).
//   const std::uint32_t bound = max_frame_bytes(hello);   // a larger frame is refused
#pragma once

#include <cstddef>
#include <cstdint>

#include "protocol/handshake.hpp"

namespace hdstream {

// A latency budget sets how many frames an mtcp receiver holds back for a gap (budget x fps,
// docs/PROTOCOL.md). mtcp senders default to 10 x RTT and srt ones to 4 x RTT: 10 s covers a
// 1 s RTT (a geostationary hop is ~0.6 s), and no live feed is worth holding longer.
inline constexpr std::uint32_t kMaxLatencyBudgetMs = 10'000;
// A frame rate's numerator and denominator: every broadcast rate fits (60000/1001), and both
// stay far inside the int that libavformat and GStreamer take them as.
inline constexpr std::uint32_t kMaxFrameRateTerm = 1'000'000;
// Beyond any link hdstream can fill (the same ceiling the SRT stream id accepts).
inline constexpr std::uint64_t kMaxBitRateBps = 400'000'000'000;
// The RTT a sender plans for only sizes socket buffers (rate x RTT); a minute is beyond Earth.
inline constexpr std::uint32_t kMaxExpectedRttUs = 60'000'000;
// 8K (DCI 8192 x 4320): decoders and displays size their pictures from these.
inline constexpr std::uint16_t kMaxFrameWidth = 8192;
inline constexpr std::uint16_t kMaxFrameHeight = 4320;
// A compressed frame may be this many times its feed's average (bit rate / fps); senders plan
// their limits with the same factor (DNxHD is constant-size per frame: 1x in practice).
inline constexpr std::uint32_t kCompressedFrameMargin = 2;
// Feeds whose frames are smaller than this still get this much room per frame.
inline constexpr std::uint32_t kMinFrameBytesBound = 1u << 20;
// Bytes of one uncompressed frame as it travels (v210 rows padded to 128 bytes per 48 pixels,
// the layout GStreamer and libavcodec agree on); 0 for compressed or synthetic feeds.
std::size_t raw_frame_bytes(const FeedDescriptor& feed);

// The largest frame a sender plans for on this feed: synthetic frames exactly their rate / fps
// (rounded), every other feed kCompressedFrameMargin x that (the rate counts picture and sound). 0
// when the frame rate is.
std::size_t planned_frame_bytes(const FeedDescriptor& feed);

// The largest frame a receiver accepts on a feed with this HELLO: raw formats exactly their
// frame size (plus the largest audio block, protocol/audio_block.hpp, on a feed with audio);
// synthetic frames their rate / fps; DNxHD kCompressedFrameMargin x that; those two at least
// kMinFrameBytesBound. Never above kMaxFrameBytes or kMaxChunksPerFrame chunks of the HELLO's chunk
// size. Total for any HELLO (0 only for a zero-sized raw format).
std::uint32_t max_frame_bytes(const Hello& hello);

}  // namespace hdstream
