// Big-endian (network order) field access for the wire format.
//   put_be<std::uint32_t>(out, kMagic);  auto magic = get_be<std::uint32_t>(in);
#pragma once

#include <concepts>
#include <cstddef>
#include <cstring>
#include <span>

#include <boost/endian/conversion.hpp>

namespace hdstream {

template <std::unsigned_integral T>
void put_be(std::span<std::byte> out, T value) {
  value = boost::endian::native_to_big(value);
  std::memcpy(out.data(), &value, sizeof(T));
}

template <std::unsigned_integral T>
T get_be(std::span<const std::byte> in) {
  T value;
  std::memcpy(&value, in.data(), sizeof(T));
  return boost::endian::big_to_native(value);
}

// Sequential writer/reader over a fixed buffer; the reader reports running out instead of
// reading past the end.
class ByteWriter {
 public:
  explicit ByteWriter(std::span<std::byte> out) : out_(out) {}
  template <std::unsigned_integral T>
  void put(T value) {
    put_be<T>(out_.subspan(pos_, sizeof(T)), value);
    pos_ += sizeof(T);
  }
  void put_bytes(std::span<const std::byte> bytes) {
    std::memcpy(out_.data() + pos_, bytes.data(), bytes.size());
    pos_ += bytes.size();
  }
  std::size_t size() const { return pos_; }

 private:
  std::span<std::byte> out_;
  std::size_t pos_ = 0;
};

class ByteReader {
 public:
  explicit ByteReader(std::span<const std::byte> in) : in_(in) {}
  template <std::unsigned_integral T>
  bool get(T& value) {
    if (in_.size() - pos_ < sizeof(T)) return false;
    value = get_be<T>(in_.subspan(pos_, sizeof(T)));
    pos_ += sizeof(T);
    return true;
  }
  bool get_bytes(std::size_t count, std::span<const std::byte>& bytes) {
    if (in_.size() - pos_ < count) return false;
    bytes = in_.subspan(pos_, count);
    pos_ += count;
    return true;
  }
  std::size_t remaining() const { return in_.size() - pos_; }

 private:
  std::span<const std::byte> in_;
  std::size_t pos_ = 0;
};

}  // namespace hdstream
