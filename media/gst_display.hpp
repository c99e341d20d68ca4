// A window (or a whole screen, for a projector) showing decoded pictures, through GStreamer:
// appsrc ! videoconvert ! videoscale ! autovideosink (waylandsink fullscreen / kmssink when asked).
//   GstDisplay display(feed, "hdstream feed 0", /*fullscreen=*/false);   // throws MediaError
//   display.show(picture);   // copies into a pooled buffer; blocks while the sink is busy
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "media/picture.hpp"
#include "protocol/handshake.hpp"

typedef struct _GstElement GstElement;
typedef struct _GstBufferPool GstBufferPool;

namespace hdstream {

// Empty when a display sink can run here; otherwise one line saying what is missing.
std::string display_problem(bool fullscreen);

// Makes Xlib thread safe (XInitThreads) when there is a display. It must run before any other
// Xlib call in the process, the Qt panel's included: main() calls it first thing.
void prepare_x11_threads();

class GstDisplay {
 public:
  GstDisplay(const FeedDescriptor& feed, const std::string& title, bool fullscreen);
  ~GstDisplay();
  GstDisplay(const GstDisplay&) = delete;
  GstDisplay& operator=(const GstDisplay&) = delete;

  // Queues one picture for display. Blocks while the display is two pictures behind, which
  // backs up into the decode queue, where drops are counted. Throws MediaError when the
  // display pipeline has failed (window closed, X server gone).
  void show(const Picture& picture);
  // Ends the display promptly; also unblocks a show() in progress.
  void close();

 private:
  FeedDescriptor feed_;
  GstElement* pipeline_ = nullptr;
  GstElement* appsrc_ = nullptr;
  GstBufferPool* pool_ = nullptr;
  std::uint64_t shown_ = 0;
  std::atomic<bool> closed_{false};
};

}  // namespace hdstream
