#include "media/picture_watch.hpp"

#include "media/plane_hash.hpp"

namespace hdstream {
namespace {

constexpr int kSampleStep = 8;

// The luma sample at (x, y) on the 8-bit scale.
int luma8(const Picture& picture, int x, int y) {
  const std::uint8_t* row =
      picture.data[0] + static_cast<std::ptrdiff_t>(y) * picture.stride_bytes[0];
  switch (picture.layout) {
    case PixelLayout::yuv422p8:
      return row[x];
    case PixelLayout::yuv422p10:
      return (row[2 * x] | (row[2 * x + 1] << 8)) >> 2;
    case PixelLayout::uyvy422:
      return row[2 * x + 1];  // U Y0 V Y1: every other byte is luma
    case PixelLayout::invalid:
      break;
  }
  return 0;
}

}  // namespace

namespace {

// Whether at least 98% of the sampled luma (every 8th pixel of every 8th row) passes `keep`.
template <typename Keep>
bool nearly_all_luma(const Picture& picture, Keep keep) {
  if (picture.layout == PixelLayout::invalid || picture.width <= 0 || picture.height <= 0) {
    return false;
  }
  // 98 % of the samples kept, i.e. at most 2 % missed: an ordinary picture is told after its
  // first few rows, only a (nearly) uniform one is read to the end.
  const long samples = static_cast<long>((picture.height + kSampleStep - 1) / kSampleStep) *
                       ((picture.width + kSampleStep - 1) / kSampleStep);
  const long may_miss = samples * 2 / 100;
  long missed = 0;
  for (int y = 0; y < picture.height; y += kSampleStep) {
    for (int x = 0; x < picture.width; x += kSampleStep) {
      if (!keep(luma8(picture, x, y)) && ++missed > may_miss) return false;
    }
  }
  return true;
}

}  // namespace

bool looks_black(const Picture& picture) {
  constexpr int kBlackCeiling = 16 + 22;  // video black plus 10% of the 219-step luma range
  return nearly_all_luma(picture, [](int luma) { return luma <= kBlackCeiling; });
}

bool looks_white(const Picture& picture) {
  constexpr int kWhiteFloor = 16 + 186;  // 85% of the 219-step luma range
  return nearly_all_luma(picture, [](int luma) { return luma >= kWhiteFloor; });
}

PictureFlags PictureWatch::observe(const Picture& picture, std::int64_t now_ns,
                                   std::optional<std::uint64_t> fingerprint) {
  PictureFlags flags;
  const std::uint64_t hash = fingerprint ? *fingerprint : picture_hash(picture);
  if (!last_hash_ || *last_hash_ != hash) {
    last_hash_ = hash;
    same_since_ns_ = now_ns;
  }
  flags.frozen = now_ns - same_since_ns_ >= options_.frozen_after.count();
  if (looks_black(picture)) {
    if (!black_since_ns_) black_since_ns_ = now_ns;
    flags.black = now_ns - *black_since_ns_ >= options_.black_after.count();
  } else {
    black_since_ns_.reset();
  }
  return flags;
}

}  // namespace hdstream
