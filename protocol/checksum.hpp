// XXH3-64 of a payload, as carried in every message header, and a chunk's share of its frame's
// content fingerprint (Frame::content_fingerprint: the sum of its chunks' shares).
//   std::uint64_t sum = hdstream::payload_checksum(bytes);
//   fingerprint += hdstream::chunk_fingerprint(header.payload_xxh3, header.chunk_index);
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include <xxhash.h>
#if defined(__x86_64__)
#define XXH_DISPATCH_DISABLE_REPLACE
#include <xxh_x86dispatch.h>
#endif

namespace hdstream {

inline std::uint64_t payload_checksum(std::span<const std::byte> bytes) {
#if defined(__x86_64__)
  // libxxhash's plain XXH3_64bits is built for baseline SSE2; the dispatch entry picks AVX2 or
  // AVX-512 at run time. Same hash value, 2-3x faster over 64 KiB chunks: hashing every byte
  // twice per side was the largest user-space cost in the bench profile.
  return XXH3_64bits_dispatch(bytes.data(), bytes.size());
#else
  return XXH3_64bits(bytes.data(), bytes.size());
#endif
}

// The chunk's checksum mixed with its index: the same bytes in another place of the frame
// count differently, and a sum of shares does not depend on the order chunks arrive in.
inline std::uint64_t chunk_fingerprint(std::uint64_t payload_xxh3, std::uint16_t chunk_index) {
  return XXH3_64bits_withSeed(&payload_xxh3, sizeof payload_xxh3, chunk_index);
}

}  // namespace hdstream
