// Clips with sound for tests (made with ffmpeg on demand, never committed) and a file's sound
// as stored, read back with ffmpeg: an independent reader of what hdstream recorded.
//   auto clip = test::clip_with_sound(cache_dir, 8);   // 30 frames, 48,048 samples, 8 channels
//   std::string pcm = test::pcm_of(recording, scratch);  // s24le bytes, "" if unreadable
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

#include <unistd.h>

#include <gtest/gtest.h>

#include "tests/support/process.hpp"

namespace hdstream::test {

// aevalsrc expressions for `channels` channels, each its own: a tone (97 Hz x its number) under
// noise (random() alone gives every channel the same sequence).
inline std::string channel_expressions(int channels) {
  std::string exprs;
  for (int c = 0; c < channels; ++c) {
    exprs += (c ? "|" : "") + ("0.5*sin(2*PI*" + std::to_string(97 * (c + 1)) + "*t)+0.2*(random(" +
                               std::to_string(c) + ")-0.5)");
  }
  return exprs;
}

// Whether two byte strings are the same, and where they first differ (gtest would print
// megabytes of PCM).
inline ::testing::AssertionResult same_bytes(const std::string& got, const std::string& want) {
  if (got == want) return ::testing::AssertionSuccess();
  std::size_t at = 0;
  while (at < got.size() && at < want.size() && got[at] == want[at]) ++at;
  return ::testing::AssertionFailure()
         << got.size() << " bytes against " << want.size() << ", first difference at byte " << at;
}

// A 30-frame 1080p29.97 DNxHD 36 clip with 1.001 s of sound (48,048 samples: whole cadences,
// so the clip loops without a seam) in `channels` channels of 24-bit sound, each its own (a
// tone of its own frequency under noise: a channel swapped or shifted shows). Made once under
// `dir`; empty path if ffmpeg failed.
inline std::filesystem::path clip_with_sound(const std::filesystem::path& dir, int channels) {
  const auto path = dir / ("dnxhd36-tones" + std::to_string(channels) + "ch.mov");
  if (std::filesystem::exists(path)) return path;
  std::filesystem::create_directories(dir);
  const std::string exprs = channel_expressions(channels);
  // Tests in other processes may want the same clip: write beside it, then rename atomically.
  const auto partial = path.string() + "." + std::to_string(::getpid()) + ".partial.mov";
  const std::string command =
      "ffmpeg -v error -y -f lavfi -i testsrc2=size=1920x1080:rate=30000/1001 -f lavfi -i "
      "\"aevalsrc=exprs='" +
      exprs +
      "':s=48000\" -t 1.001 -c:v dnxhd -b:v 36M -pix_fmt yuv422p "
      "-c:a pcm_s24le '" +
      partial + "'";
  if (std::system(command.c_str()) != 0) return {};
  std::filesystem::rename(partial, path);
  return path;
}

// A file's first audio stream as stored, as s24le bytes ("" if unreadable). `scratch`: where
// ffmpeg writes it.
inline std::string pcm_of(const std::filesystem::path& file, const std::filesystem::path& scratch) {
  const auto out = scratch / (file.filename().string() + ".pcm");
  const std::string command = "ffmpeg -v error -y -i '" + file.string() +
                              "' -map 0:a:0 -c:a copy -f s24le '" + out.string() + "'";
  if (std::system(command.c_str()) != 0) return {};
  return read_file(out);
}

}  // namespace hdstream::test
