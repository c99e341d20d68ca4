#include "media/plane_hash.hpp"

#define XXH_STATIC_LINKING_ONLY  // XXH3_state_t on the stack: no allocation per picture
#include <xxhash.h>

namespace hdstream {

std::uint64_t picture_hash(const Picture& picture) {
  XXH3_state_t state;
  XXH3_64bits_reset(&state);
  for (int p = 0; p < picture.plane_count; ++p) {
    for (int y = 0; y < picture.rows[p]; ++y) {
      XXH3_64bits_update(&state,
                         picture.data[p] + static_cast<std::ptrdiff_t>(y) * picture.stride_bytes[p],
                         static_cast<std::size_t>(picture.row_bytes[p]));
    }
  }
  return XXH3_64bits_digest(&state);
}

}  // namespace hdstream
