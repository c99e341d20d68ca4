// Pre-shared keys for authentication tests: every byte `fill`, so two fills are two keys.
//   PresharedKey key = test::key_of(1);
#pragma once

#include <cstdint>

#include "protocol/auth.hpp"

namespace hdstream::test {

inline PresharedKey key_of(std::uint8_t fill) {
  PresharedKey key;
  key.fill(static_cast<std::byte>(fill));
  return key;
}

}  // namespace hdstream::test
