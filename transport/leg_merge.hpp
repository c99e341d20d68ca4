// Two-path protection at the receiver (SMPTE ST 2022-7 in spirit, frame by frame): each leg of a
// protected feed is a session of its own, reassembling and verifying its frames; the merge hands
// the consumer every frame once, in order, from whichever leg completed it first. A frame still
// missing waits at most the skew window for the other leg, and is given up at once when every
// leg still up has passed it. A feed of one leg passes straight through.
//
//   LegMerge merge(consumer, stats, {.streams = 5});
//   if (merge.claim(stream, hello, reason) == AckStatus::accepted) ...
//   FrameConsumer& leg = merge.leg(hello.leg);  // the session delivers its frames to it
//   leg.session_started(stream, hello); leg.frame_received(stream, frame); ...
//   merge.release(stream, hello.leg);           // when the session is over
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "protocol/handshake.hpp"
#include "protocol/reassembler.hpp"
#include "stats/registry.hpp"
#include "transport/transport.hpp"

namespace hdstream {

struct LegMergeOptions {
  std::size_t streams = 1;
  // The skew window: how long a frame one leg lacks waits for the other. Unset: sized from the
  // legs as measured, skew_window() below.
  std::optional<std::chrono::nanoseconds> skew;
  // Frames held back waiting for an earlier one, per feed, at most (beyond: the oldest missing
  // frame is given up); with a fixed skew, at least what arrives within it. The receiver
  // reserves memory for them (receiver --max-memory).
  std::size_t max_held_frames = 8;
  std::function<std::int64_t()> clock;  // monotonic ns; default: monotonic_ns()
};

// The skew window of two paths: their RTT difference (the one-way difference, with the same
// again for its variation), four times the larger jitter, and one frame period.
std::chrono::nanoseconds skew_window(double rtt_a_ms, double rtt_b_ms, double jitter_ms,
                                     double frames_per_second);

class LegMerge {
 public:
  LegMerge(FrameConsumer& consumer, StatsRegistry& stats, LegMergeOptions options);
  ~LegMerge();
  LegMerge(const LegMerge&) = delete;
  LegMerge& operator=(const LegMerge&) = delete;

  // A session asks for its stream's place: `accepted`, `bad_stream`, or `stream_busy` (another
  // feed holds the stream, or this leg of it is already up). `reason` is the refusal's line.
  // A feed of one leg holds the whole stream; the legs of a protected feed share it by feed id.
  AckStatus claim(std::uint16_t stream, const Hello& hello, std::string& reason);
  // The session that claimed (stream, leg) is over (after its session_ended, if it started).
  void release(std::uint16_t stream, std::uint8_t leg);

  // What a session of `hello` reserves from the receiver's memory budget: its reassembler's
  // frames (`reassembly`) and, for a leg of a protected feed, the frames the merge may hold.
  ReassemblerConfig reserved_config(const Hello& hello, ReassemblerConfig reassembly) const;

  // Where leg `leg`'s sessions deliver (calls for one stream and leg are never concurrent).
  FrameConsumer& leg(std::uint8_t leg);
  // The counters a leg's session writes (rtt, transport figures, its reassembler's drops):
  // the stream's own for a feed of one leg, the leg's for a protected feed.
  StreamCounters& counters(std::uint16_t stream, const Hello& hello);

 private:
  class LegConsumer;
  struct Feed;
  void started(std::uint8_t leg, std::uint16_t stream, const Hello& hello);
  void frame(std::uint8_t leg, std::uint16_t stream, FramePtr frame);
  void ended(std::uint8_t leg, std::uint16_t stream, bool clean, std::uint64_t next_seq);
  void release_ready(std::uint16_t stream, Feed& feed, std::int64_t now_ns);
  void retire_delivered(std::uint16_t stream, Feed& feed, std::size_t keep);
  std::int64_t skew_ns(std::uint16_t stream, const Feed& feed) const;
  std::size_t held_limit(double fps) const;  // frames held per feed at most

  FrameConsumer& consumer_;
  StatsRegistry& stats_;
  LegMergeOptions options_;
  std::array<std::unique_ptr<LegConsumer>, kMaxLegs> legs_;
  std::vector<std::unique_ptr<Feed>> feeds_;  // one per stream
};

}  // namespace hdstream
