// The program output (`--output program[:N]`): one chosen feed fullscreen on a projector, cut
// live from the multiview (keys, a click), the panel, or POST /program?feed=K. A cut shows the
// new feed's next decoded picture: the screen holds the old feed's last picture until then (no
// black frame), and no other feed's decoding notices. The time from the request to the new
// feed's picture reaching the window is measured and logged.
//   Program program(5);
//   sinks[k].push_back(program.sink_for(k));      // every feed offers its pictures
//   ScreenWindow window(screen, program.view());  // shows whichever feed is on air
//   program.cut(2);                               // any thread; an error line for a bad feed
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "display/feed_view.hpp"

namespace hdstream {

class Program {
 public:
  explicit Program(std::size_t streams);

  // Puts feed `feed` on air at its next picture. Any thread. Returns the problem for a feed
  // this receiver does not serve.
  std::optional<std::string> cut(int feed);
  int on_air() const { return on_air_.load(std::memory_order_relaxed); }
  // What the program window shows.
  const std::shared_ptr<FeedView>& view() const { return view_; }
  // Feed `stream`'s sink: its pictures go to view() while it is on air. The sink shares the
  // program, so a decoder that outlives the windows never calls into a freed one.
  static std::shared_ptr<PictureSink> sink_for(std::shared_ptr<Program> program,
                                               std::uint16_t stream);

 private:
  class FeedSink;
  void offer(std::uint16_t stream, const Picture& picture, const PictureFlags& flags);

  std::size_t streams_;
  // Held while a picture goes on air and while a cut changes the feed: the old feed's picture
  // in flight lands before the new feed's first, never after it, and is never counted as it.
  std::mutex offering_;
  std::atomic<int> on_air_{0};         // written under offering_; read without it to skip
  std::int64_t cut_requested_ns_ = 0;  // under offering_; 0: no cut waiting for its picture
  std::shared_ptr<FeedView> view_;
};

}  // namespace hdstream
