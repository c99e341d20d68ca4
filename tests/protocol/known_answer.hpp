// Helpers for the known-answer tests: literal byte arrays as std::byte, and a hex form that
// gtest prints readably when an encoder's output differs from the pinned bytes.
//   EXPECT_EQ(test::hex(encode_end(2, End{300})), test::hex(kEndMessage));
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace hdstream::test {

inline std::vector<std::byte> bytes_of(std::span<const std::uint8_t> literal) {
  const auto bytes = std::as_bytes(literal);
  return {bytes.begin(), bytes.end()};
}

// "48 44 53 54 01 ..."; a line break every 16 bytes so a differing field is easy to find.
inline std::string hex(std::span<const std::byte> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const auto value = std::to_integer<unsigned>(bytes[i]);
    if (i > 0) out += i % 16 == 0 ? '\n' : ' ';
    out += kDigits[value >> 4];
    out += kDigits[value & 15];
  }
  return out;
}

inline std::string hex(std::span<const std::uint8_t> literal) {
  return hex(std::as_bytes(literal));
}

}  // namespace hdstream::test
