#include "pipeline/synthetic.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "protocol/byte_order.hpp"

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

// Regenerating every byte with xoshiro was the sender's single largest cost in the profile
// (0.09 ns/byte, over half of the bench sender's user CPU). Instead each process draws one tape
// of random words once, and a frame is a window of that tape at a position chosen by
// (stream, seq), XORed with a per-frame key: every frame is still unique, pseudo-random and
// deterministic, at the cost of a streaming XOR.
constexpr std::size_t kTapeWords = (4u << 20) / 8;  // 4 MiB: larger than common frames

const std::vector<std::uint64_t>& tape() {
  static const std::vector<std::uint64_t> words = [] {
    std::vector<std::uint64_t> out(kTapeWords);
    Xoshiro256 random(0x68647374'7461706bULL);  // "hdsttapk"
    for (auto& word : out) word = random.next();
    return out;
  }();
  return words;
}

// GCC/Clang vector extension: two SSE2 ops on baseline x86-64, one on AVX2; no intrinsics.
using Words4 = std::uint64_t __attribute__((vector_size(32)));

// An AVX2 clone chosen at load time by an ifunc resolver. Under ThreadSanitizer the resolver
// itself is instrumented and runs during relocation, before the TSan runtime exists, and
// crashes the process at start-up: there, baseline code only.
#if defined(__SANITIZE_THREAD__)
#define HDSTREAM_AVX2_CLONES
#else
#define HDSTREAM_AVX2_CLONES __attribute__((target_clones("avx2", "default")))
#endif

HDSTREAM_AVX2_CLONES void xor_copy(std::byte* out, const std::uint64_t* in, std::size_t words,
                                   std::uint64_t key) {
  std::size_t i = 0;
  const Words4 keys = {key, key, key, key};
  for (; i + 4 <= words; i += 4) {
    Words4 block;
    std::memcpy(&block, in + i, sizeof block);
    block ^= keys;
    std::memcpy(out + i * 8, &block, sizeof block);
  }
  for (; i < words; ++i) {
    const std::uint64_t word = in[i] ^ key;
    std::memcpy(out + i * 8, &word, 8);
  }
}

// The canaries of frame (stream, seq): one at every kSyntheticCanarySpacing of the content and
// one in its last 8 bytes (unless that would overlap the one before), each splitmix64 of a
// state seeded by both, advanced once per canary, XORed with its offset.
template <typename Visit>
void for_each_canary(std::uint16_t stream_id, std::uint64_t seq, std::size_t content_bytes,
                     Visit visit) {
  if (content_bytes < 8) return;
  std::uint64_t state = (std::uint64_t{stream_id} << 48) ^ (seq * 0x9e3779b97f4a7c15ULL);
  std::size_t at = 0;
  for (; at + 8 <= content_bytes; at += kSyntheticCanarySpacing) {
    if (!visit(at, splitmix64(state) ^ at)) return;
  }
  const std::size_t tail = content_bytes - 8;
  if (tail >= at - kSyntheticCanarySpacing + 8) visit(tail, splitmix64(state) ^ tail);
}

}  // namespace

SyntheticSource::SyntheticSource(std::uint16_t stream_id, std::size_t frame_bytes)
    : stream_id_(stream_id), frame_bytes_(std::max(frame_bytes, kMinSyntheticFrameBytes)) {
  tape();  // drawn now, not inside the first frame's time budget
}

FramePtr SyntheticSource::next_frame(std::uint64_t seq) {
  FramePtr frame = pool_.acquire(frame_bytes_);
  frame->stream_id = stream_id_;
  frame->seq = seq;
  // Only this source writes into its pool's frames (all of one size), so a recycled one that
  // carries this stream's magic holds a background already; a fresh one holds anything.
  std::span<const std::byte> data(frame->data);
  const bool filled = frame->recycled && data.size() >= 6 &&
                      get_be<std::uint32_t>(data.subspan(0, 4)) == kSyntheticMagic &&
                      get_be<std::uint16_t>(data.subspan(4, 2)) == stream_id_;
  if (filled) {
    restamp_synthetic(*frame);
  } else {
    fill_synthetic(*frame);
  }
  return frame;
}

void fill_synthetic(Frame& frame) {
  std::span<std::byte> data(frame.data);
  if (data.size() < kSyntheticHeaderBytes) return;
  std::uint64_t state = (std::uint64_t{frame.stream_id} << 48) ^ frame.seq;
  auto content = data.subspan(kSyntheticHeaderBytes);
  const std::size_t words = content.size() / 8;
  const std::uint64_t* source = tape().data();
  for (std::size_t done = 0; done < words;) {
    const std::uint64_t key = splitmix64(state);
    const std::size_t start = splitmix64(state) % kTapeWords;
    const std::size_t run = std::min(words - done, kTapeWords - start);
    xor_copy(content.data() + done * 8, source + start, run, key);
    done += run;
  }
  const std::uint64_t tail = splitmix64(state);
  std::memcpy(content.data() + words * 8, &tail, content.size() - words * 8);
  restamp_synthetic(frame);
}

void restamp_synthetic(Frame& frame) {
  std::span<std::byte> data(frame.data);
  if (data.size() < kSyntheticHeaderBytes) return;
  auto content = data.subspan(kSyntheticHeaderBytes);
  for_each_canary(frame.stream_id, frame.seq, content.size(),
                  [&](std::size_t at, std::uint64_t canary) {
                    std::memcpy(content.data() + at, &canary, 8);
                    return true;
                  });
  put_be<std::uint32_t>(data.subspan(0, 4), kSyntheticMagic);
  put_be<std::uint16_t>(data.subspan(4, 2), frame.stream_id);
  put_be<std::uint16_t>(data.subspan(6, 2), 0);
  put_be<std::uint64_t>(data.subspan(8, 8), frame.seq);
  put_be<std::uint64_t>(data.subspan(16, 8), data.size());
}

bool verify_synthetic(const Frame& frame) {
  std::span<const std::byte> data(frame.data);
  if (data.size() < kSyntheticHeaderBytes) return false;
  if (get_be<std::uint32_t>(data.subspan(0, 4)) != kSyntheticMagic ||
      get_be<std::uint16_t>(data.subspan(4, 2)) != frame.stream_id ||
      get_be<std::uint64_t>(data.subspan(8, 8)) != frame.seq ||
      get_be<std::uint64_t>(data.subspan(16, 8)) != data.size()) {
    return false;
  }
  auto content = data.subspan(kSyntheticHeaderBytes);
  bool ok = true;
  for_each_canary(frame.stream_id, frame.seq, content.size(),
                  [&](std::size_t at, std::uint64_t canary) {
                    std::uint64_t found;
                    std::memcpy(&found, content.data() + at, 8);
                    ok = found == canary;
                    return ok;
                  });
  return ok;
}

}  // namespace hdstream
