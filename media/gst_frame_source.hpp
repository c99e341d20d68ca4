// Raw frames from a GStreamer launch description through appsink, converted to the feed's
// format and size: "videotestsrc pattern=smpte", "v4l2src", "decklinkvideosrc", ...
//   GstFrameSource source("videotestsrc pattern=smpte", feed);   // parses and prerolls
//   source.start([](const Picture& p, std::span<const std::byte> raw) { ...; return true; });
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <thread>

#include "media/picture.hpp"
#include "protocol/handshake.hpp"

typedef struct _GstElement GstElement;

namespace hdstream {

class GstFrameSource {
 public:
  // Called on the source's thread for each frame: the planes (Y42B for DNxHD feeds, the packed
  // plane for v210/UYVY) and, for packed formats, the frame's bytes in wire layout. Return
  // false to stop the source.
  using OnFrame = std::function<bool(const Picture&, std::span<const std::byte> packed)>;
  // Called once on the source's thread when the pipeline ends (EOS, error text, or stop()).
  using OnEnd = std::function<void(const std::string& why)>;

  // Appends conversion to the feed's caps and an appsink to `description`, then prerolls so a
  // missing element, a missing device or caps that cannot be met fail here, as MediaError.
  GstFrameSource(const std::string& description, const FeedDescriptor& feed);
  ~GstFrameSource();
  GstFrameSource(const GstFrameSource&) = delete;
  GstFrameSource& operator=(const GstFrameSource&) = delete;

  void start(OnFrame on_frame, OnEnd on_end);
  // Stops the pipeline and joins its thread; returns in bounded time (the pull waits 100 ms).
  void stop();

 private:
  void run();

  FeedDescriptor feed_;
  GstElement* pipeline_ = nullptr;
  GstElement* appsink_ = nullptr;
  OnFrame on_frame_;
  OnEnd on_end_;
  std::atomic<bool> stopping_{false};
  std::jthread thread_;
};

}  // namespace hdstream
