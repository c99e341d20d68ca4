// Confidence checks on a feed's decoded pictures, as a multiviewer's alarms: a frozen picture
// (every picture identical for `frozen_after`) and a black one (nearly all luma at or below
// video black for `black_after`). Cheap enough for every picture: the frame's content
// fingerprint from the wire's checksums (or one XXH3 pass over the planes without one) and a
// luma sample every 8th pixel of every 8th row.
//   PictureWatch watch;
//   const PictureFlags flags = watch.observe(picture, now_ns);   // flags.frozen, flags.black
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

#include "media/picture.hpp"

namespace hdstream {

struct PictureFlags {
  bool frozen = false;
  bool black = false;
};

struct PictureWatchOptions {
  std::chrono::nanoseconds frozen_after = std::chrono::seconds(2);
  std::chrono::nanoseconds black_after = std::chrono::seconds(1);
};

// True when at least 98% of the sampled luma is at most 10% above video black (16 of 219 steps
// in 8-bit: Y <= 38; 10-bit scaled), as broadcast black detectors judge it.
bool looks_black(const Picture& picture);

// True when at least 98% of the sampled luma is at least 85% of the way to video white (Y >= 202
// in 8-bit): the sync marker's flash frame (media/sync_marker.hpp).
bool looks_white(const Picture& picture);

class PictureWatch {
 public:
  explicit PictureWatch(PictureWatchOptions options = {}) : options_(options) {}

  // `fingerprint`: the frame's Frame::content_fingerprint when it has one. Equal coded bytes
  // decode to equal pictures (hdstream's formats are intra-only and raw), so it stands for the
  // picture hash, which costs a pass over every plane; without one the planes are hashed.
  PictureFlags observe(const Picture& picture, std::int64_t now_ns,
                       std::optional<std::uint64_t> fingerprint = std::nullopt);

 private:
  PictureWatchOptions options_;
  std::optional<std::uint64_t> last_hash_;
  std::int64_t same_since_ns_ = 0;
  std::optional<std::int64_t> black_since_ns_;
};

}  // namespace hdstream
