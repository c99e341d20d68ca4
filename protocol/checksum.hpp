// XXH3-64 of a payload, as carried in every message header.
//   std::uint64_t sum = hdstream::payload_checksum(bytes);
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include <xxhash.h>

namespace hdstream {

inline std::uint64_t payload_checksum(std::span<const std::byte> bytes) {
  return XXH3_64bits(bytes.data(), bytes.size());
}

}  // namespace hdstream
