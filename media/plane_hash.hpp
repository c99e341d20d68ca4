// A hash of a picture's visible samples (rows without stride padding): two decodes of the same
// bitstream agree, whatever buffers they landed in.
//   EXPECT_EQ(picture_hash(received), picture_hash(local));
#pragma once

#include <cstdint>

#include "media/picture.hpp"

namespace hdstream {

std::uint64_t picture_hash(const Picture& picture);

}  // namespace hdstream
