// Where a receiver's decoded feeds go (--output, repeatable) and how their queues behave.
//   MediaOutput out = parse_outputs({"file:/rec/feed{stream}.mov", "display"}, 5, false);
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "media/picture.hpp"
#include "pipeline/picture_sink.hpp"
#include "pipeline/recording_names.hpp"
#include "protocol/frame.hpp"
#include "protocol/handshake.hpp"

namespace hdstream {

// One place every feed goes to.
struct OutputTarget {
  enum class Kind : std::uint8_t {
    null = 1,
    display = 2,
    file = 3,
    screen = 4,
    multiview = 5,
    program = 6
  };
  Kind kind = Kind::null;
  std::string file_pattern;  // for file: "{stream}" becomes the stream number
  std::string screen;        // screen: a number or "{stream}"; multiview, program: a number
  // For multiview: a window beside the operator's panel (the demo) instead of the whole screen.
  bool beside_panel = false;

  // The screen a feed goes to (screen, multiview).
  int screen_for(std::uint16_t stream) const;
  // Shown in Qt windows (display/).
  bool on_screens() const {
    return kind == Kind::display || kind == Kind::screen || kind == Kind::multiview ||
           kind == Kind::program;
  }
};

struct MediaOutput {
  // Every feed goes to each target. None: frames are counted and verified, nothing decodes.
  std::vector<OutputTarget> targets;
  bool fullscreen = false;  // display --fullscreen: every feed on its own screen (screen:{stream})
  std::string layout;       // for multiview: "COLUMNSxROWS"; empty: chosen from the feed count
  // Each output has its own bounded queue per feed; beyond it the oldest frame is dropped and
  // counted, so a slow output never holds up another one or the network.
  // Decode queue (feeds the display): 8 frames (267 ms at 29.97) ride out a decoder descheduled
  // on a busy machine; in steady state the queue is empty.
  // Where each feed's sound plays (--audio-output): "auto" (the default sound device, or nowhere
  // where there is none), "null" (played in real time, heard nowhere), or an ALSA device.
  std::string audio_output = "auto";
  // Whose sound the device hears: every feed's (each on its own sink) when empty; with a
  // program output, only the feed on air (display/VideoWall::heard: the program's sound follows
  // its cut). Asked for each frame on the network strand.
  std::function<bool(std::uint16_t stream)> heard;
  // The silence alarm (--silence-alarm): every channel below -60 dBFS for this long.
  std::chrono::nanoseconds silence_alarm = std::chrono::seconds(5);
  std::size_t queue_frames = 8;
  // Recording queue: frames as they came, waiting for the disk. Up to 2 s at 29.97 fps and at
  // most 128 MiB per recording (0.9 s of uncompressed 1080 at 1.2 Gbps): a recording rides out
  // a slow disk flush and loses a frame only when the disk falls that far behind, and five
  // stalled recordings hold at most 640 MiB.
  std::size_t record_queue_frames = 60;
  std::uint64_t record_queue_bytes = 128ull << 20;
  // Which file each recording goes into (never one that exists, unless recv --overwrite): one
  // for the receiver, shared by every copy of its output, so that a feed's next file and another
  // feed's never take a name this run already wrote.
  std::shared_ptr<RecordingNames> recording_names = std::make_shared<RecordingNames>();
  int decoder_threads = 1;

  // Where decoded pictures go besides the targets: the display layer's windows (screen,
  // multiview, program) and the panel's thumbnails. The sinks for one feed, asked for when its
  // session starts, fed on its decode worker.
  using SinkFactory =
      std::function<std::vector<std::shared_ptr<PictureSink>>(std::uint16_t stream, const Hello&)>;
  SinkFactory picture_sinks;
  // Adds `factory`'s sinks to those picture_sinks already gives.
  void add_picture_sinks(SinkFactory factory);
  // A fixed delay before each decode (recv --debug-decode-delay): a deliberately slow decoder
  // for the process tests of the drop policy.
  std::chrono::microseconds debug_decode_delay{0};

  bool decodes() const { return !targets.empty(); }
  bool on_screens() const { return std::ranges::any_of(targets, &OutputTarget::on_screens); }
  // The recording queue's length for `feed`: record_queue_frames, fewer when its frames are
  // large, never under 2.
  std::size_t record_queue_for(const FeedDescriptor& feed) const;
  const OutputTarget* find(OutputTarget::Kind kind) const;
  // "display + file:rec/f{stream}.mov", for log lines.
  std::string describe() const;
};

// Each spec is "null", "display", "file:PATTERN", "screen:N" or "multiview[:N]"; every feed
// goes to all of them. With several streams a file pattern and a screen need {stream}. Checks
// what can be checked before any feed arrives (display available, directory exists; the screens
// themselves are checked when the display layer starts). Throws SpecError with one line naming
// what to fix.
MediaOutput parse_outputs(const std::vector<std::string>& specs, std::size_t streams,
                          bool fullscreen, std::string layout = {});

std::string to_string(OutputTarget::Kind kind);

}  // namespace hdstream
