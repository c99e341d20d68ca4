// Where a receiver's decoded feeds go (--output) and how its decode queues behave.
//   MediaOutput out = parse_output("file:/rec/feed{stream}.mov", 5);   // throws SpecError
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "media/picture.hpp"
#include "protocol/frame.hpp"

namespace hdstream {

struct MediaOutput {
  enum class Kind : std::uint8_t { none = 0, null = 1, display = 2, file = 3 };
  Kind kind = Kind::none;    // none: frames are counted and verified, nothing decodes
  std::string file_pattern;  // for file: "{stream}" becomes the stream number
  bool fullscreen = false;   // for display: the whole screen (projector)
  // Decode queue per feed; beyond it the oldest frame is dropped. 8 frames (267 ms at 29.97)
  // ride out a decoder descheduled on a busy machine; in steady state the queue is empty.
  std::size_t queue_frames = 8;
  int decoder_threads = 1;

  // Test hooks, run on the decode worker: after each decoded picture (a deliberately slow one
  // exercises the drop policy), and a fixed delay before each decode.
  std::function<void(const Frame&, const Picture&)> on_picture;
  std::chrono::microseconds debug_decode_delay{0};
};

// "null", "display" or "file:PATTERN". With several streams a file pattern needs {stream}.
// Checks what can be checked before any feed arrives (display available, directory exists).
MediaOutput parse_output(const std::string& spec, std::size_t streams, bool fullscreen);

std::string to_string(MediaOutput::Kind kind);

}  // namespace hdstream
