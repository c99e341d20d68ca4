// One feed sent in full over two paths (two-path protection): a SenderTransport made of two,
// one per leg, each with its own connection(s), congestion control and buffers. Every frame
// goes to every leg that is up; a leg whose session breaks is re-established in the background
// (its transport's reopen()) while the other carries on, and the feed only sees a break when
// both legs are down. The feed starts once one leg is up; a leg that is not joins when it
// connects. The receiver merges the legs (transport/leg_merge.hpp).
//   auto sender = std::make_shared<ProtectedSender>(strand, std::move(legs), counters);
#pragma once

#include <array>
#include <memory>

#include "common/async_event.hpp"
#include "transport/transport.hpp"

namespace hdstream {

class ProtectedSender : public SenderTransport,
                        public std::enable_shared_from_this<ProtectedSender> {
 public:
  // A leg: its transport, made on the feed's executor announcing leg i of the feed id, and the
  // counters it writes (StatsRegistry::leg), where the frames its full queue drops count too.
  struct LegTransport {
    std::shared_ptr<SenderTransport> transport;
    StreamCounters* counters = nullptr;
  };
  // `counters`: the feed's (frames handed to at least one leg).
  ProtectedSender(asio::any_io_executor executor, std::array<LegTransport, 2> legs,
                  StreamCounters& counters, std::uint16_t stream_id);

  awaitable<bool> open() override;
  SubmitResult submit(FramePtr frame) override;
  awaitable<bool> close(std::uint64_t frames_sent) override;
  void stop() override;
  awaitable<bool> reopen(std::uint64_t first_frame_seq) override;

 private:
  struct Leg {
    std::shared_ptr<SenderTransport> transport;
    StreamCounters* counters = nullptr;
    bool up = false;
    bool restoring = false;                     // connecting, at first or again
    std::unique_ptr<asio::steady_timer> pause;  // between tries to bring the leg back
  };
  // Runs step(0) and step(1) (awaitable<bool>) at once; what each returned.
  template <typename Step>
  awaitable<std::array<bool, 2>> on_both(Step step);
  awaitable<void> open_leg(std::size_t leg);  // the leg's first connection
  // A leg that broke or never connected: its transport's reopen() in the background, for a
  // session from `first_frame_seq` (the frame after the last it took, or the feed's first),
  // tried again a second after each failure for as long as the feed runs.
  // The receiver counts the frames it missed meanwhile as the leg's drops: each leg's frames
  // and drops add up to the feed's.
  void retry(std::size_t leg, std::uint64_t first_frame_seq);
  awaitable<void> restore(std::size_t leg, std::uint64_t first_frame_seq);
  void publish_legs_up();
  bool any_up() const { return legs_[0].up || legs_[1].up; }
  bool any_restoring() const { return legs_[0].restoring || legs_[1].restoring; }

  asio::any_io_executor executor_;
  std::array<Leg, 2> legs_;
  StreamCounters& counters_;
  std::uint16_t stream_id_;
  AsyncEvent changed_;           // a leg came back or gave up
  std::uint64_t first_seq_ = 0;  // the feed's first frame, once submitted
  bool submitted_any_ = false;
  bool started_ = false;  // open() has returned true
  bool stopped_ = false;
  bool closing_ = false;
};

}  // namespace hdstream
