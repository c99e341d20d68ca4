#include "pipeline/synthetic.hpp"

#include <algorithm>
#include <cstring>

#include "protocol/byte_order.hpp"
#include "protocol/checksum.hpp"

namespace hdstream {
namespace {

constexpr std::uint32_t kSyntheticMagic = 0x53594e46;  // "SYNF"

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// xoshiro256**: fast, and good enough that no link compression or dedup can cheat.
class Xoshiro256 {
 public:
  explicit Xoshiro256(std::uint64_t seed) {
    for (auto& word : s_) word = splitmix64(seed);
  }
  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
};

}  // namespace

SyntheticSource::SyntheticSource(std::uint16_t stream_id, std::size_t frame_bytes)
    : stream_id_(stream_id), frame_bytes_(std::max(frame_bytes, kMinSyntheticFrameBytes)) {}

FramePtr SyntheticSource::next_frame(std::uint64_t seq) {
  FramePtr frame = pool_.acquire(frame_bytes_);
  frame->stream_id = stream_id_;
  frame->seq = seq;
  fill_synthetic(*frame);
  return frame;
}

void fill_synthetic(Frame& frame) {
  std::span<std::byte> data(frame.data);
  if (data.size() < kSyntheticHeaderBytes) return;
  Xoshiro256 random((std::uint64_t{frame.stream_id} << 48) ^ frame.seq);
  auto content = data.subspan(kSyntheticHeaderBytes);
  std::size_t offset = 0;
  for (; offset + 8 <= content.size(); offset += 8) {
    const std::uint64_t word = random.next();
    std::memcpy(content.data() + offset, &word, 8);
  }
  const std::uint64_t tail = random.next();
  std::memcpy(content.data() + offset, &tail, content.size() - offset);

  put_be<std::uint32_t>(data.subspan(0, 4), kSyntheticMagic);
  put_be<std::uint16_t>(data.subspan(4, 2), frame.stream_id);
  put_be<std::uint16_t>(data.subspan(6, 2), 0);
  put_be<std::uint64_t>(data.subspan(8, 8), frame.seq);
  put_be<std::uint64_t>(data.subspan(16, 8), payload_checksum(content));
}

bool verify_synthetic(const Frame& frame) {
  std::span<const std::byte> data(frame.data);
  if (data.size() < kSyntheticHeaderBytes) return false;
  return get_be<std::uint32_t>(data.subspan(0, 4)) == kSyntheticMagic &&
         get_be<std::uint16_t>(data.subspan(4, 2)) == frame.stream_id &&
         get_be<std::uint64_t>(data.subspan(8, 8)) == frame.seq &&
         get_be<std::uint64_t>(data.subspan(16, 8)) ==
             payload_checksum(data.subspan(kSyntheticHeaderBytes));
}

}  // namespace hdstream
