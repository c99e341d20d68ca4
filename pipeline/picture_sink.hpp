// Where a feed's decoded pictures are shown: a screen, a multiview tile, the program output, a
// thumbnail. Implemented by the display layer (Qt); the pipeline only calls it.
//   for (auto& sink : sinks) sink->show(picture, flags);   // on the feed's decode worker
#pragma once

#include "media/picture.hpp"
#include "media/picture_watch.hpp"

namespace hdstream {

class PictureSink {
 public:
  virtual ~PictureSink() = default;
  // Called on the feed's decode worker for every decoded picture; the picture is valid only for
  // the call. Must return promptly: a sink copies (scales) what it needs and never waits for a
  // screen, so one slow window never holds up the decoder, the recordings or the network.
  virtual void show(const Picture& picture, const PictureFlags& flags) = 0;
};

}  // namespace hdstream
