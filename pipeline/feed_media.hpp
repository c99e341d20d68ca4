// What a receiver does with one feed's verified frames beyond counting them: decode, record,
// show. The implementation (pipeline/media_feed.hpp's MediaFeed) needs libavcodec, so the
// receiver asks the media provider for one (pipeline/media_provider.hpp) and only when an
// --output decodes.
//   std::unique_ptr<FeedMedia> media = media_provider().make_feed_media(stream, hello, output, c);
//   media->push(frame);  ...  media->finish();
#pragma once

#include "protocol/frame.hpp"

namespace hdstream {

class FeedMedia {
 public:
  virtual ~FeedMedia() = default;
  // Never blocks the network strand.
  virtual void push(FramePtr frame) = 0;
  // No more frames: the workers drain their queues, finalize their sinks and exit.
  virtual void close() = 0;
  // close() and wait for the workers. Idempotent.
  virtual void finish() = 0;
};

}  // namespace hdstream
