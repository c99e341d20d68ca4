#include "transport/leg_merge.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "common/clock.hpp"

namespace hdstream {
namespace {

char leg_name(std::uint8_t leg) {
  return static_cast<char>('A' + leg);
}

// A leg's copy of a frame that comes this long after the other's still counts as delivered by
// it: its path delayed the frame (a TCP leg's queue, sent once the path is back) but did not
// lose it. Who brought a frame is settled by then at the latest.
constexpr double kLateCopySeconds = 10;

}  // namespace

std::chrono::nanoseconds skew_window(double rtt_a_ms, double rtt_b_ms, double jitter_ms,
                                     double frames_per_second) {
  const double frame_ms = frames_per_second > 0 ? 1000.0 / frames_per_second : 0;
  const double ms = std::abs(rtt_a_ms - rtt_b_ms) + 4 * jitter_ms + frame_ms;
  return std::chrono::nanoseconds(static_cast<std::int64_t>(std::llround(ms * 1e6)));
}

// What the legs of one stream share. Guarded by `mutex`: the legs' sessions run concurrently.
struct LegMerge::Feed {
  struct Leg {
    bool claimed = false;
    bool up = false;             // between its session_started and session_ended
    std::uint64_t passed = 0;    // every frame below was delivered or given up by this leg
    double expected_rtt_ms = 0;  // the sender's plan for this path (HELLO)
  };
  struct Held {
    FramePtr frame;
    std::int64_t since_ns = 0;  // when the first copy arrived
    std::uint8_t legs = 0;      // bit i: leg i delivered it
  };
  struct Delivered {
    std::uint64_t seq = 0;
    std::uint8_t legs = 0;
  };

  std::mutex mutex;
  std::uint8_t legs = 0;  // 0: the stream is free; 1: a feed of one leg; 2: protected
  std::uint64_t feed_id = 0;
  std::array<Leg, kMaxLegs> leg;
  // Where each leg's last session of this feed ended (unset: it has had none). The frames
  // between it and where the leg's next session starts are that leg's drops.
  std::array<std::optional<std::uint64_t>, kMaxLegs> leg_ended_at;
  bool started = false;  // the consumer has a session for this feed
  bool clean = false;    // a leg said END
  std::uint64_t end_seq = 0;
  std::uint64_t next_seq = 0;  // the next frame the consumer gets
  double fps = 0;
  std::map<std::uint64_t, Held> held;  // frames waiting for an earlier one
  std::deque<Delivered> delivered;     // recent frames, until every leg up has passed them

  bool any_up() const {
    return std::any_of(leg.begin(), leg.end(), [](const Leg& l) { return l.up; });
  }
};

class LegMerge::LegConsumer : public FrameConsumer {
 public:
  LegConsumer(LegMerge& merge, std::uint8_t leg) : merge_(merge), leg_(leg) {}
  void session_started(std::uint16_t stream, const Hello& hello) override {
    merge_.started(leg_, stream, hello);
  }
  void frame_received(std::uint16_t stream, FramePtr frame) override {
    merge_.frame(leg_, stream, std::move(frame));
  }
  void session_ended(std::uint16_t stream, bool clean, std::uint64_t next_seq) override {
    merge_.ended(leg_, stream, clean, next_seq);
  }

 private:
  LegMerge& merge_;
  std::uint8_t leg_;
};

LegMerge::LegMerge(FrameConsumer& consumer, StatsRegistry& stats, LegMergeOptions options)
    : consumer_(consumer), stats_(stats), options_(std::move(options)) {
  if (!options_.clock) options_.clock = steady_clock_ns;
  for (std::uint8_t i = 0; i < kMaxLegs; ++i) legs_[i] = std::make_unique<LegConsumer>(*this, i);
  for (std::size_t i = 0; i < options_.streams; ++i) feeds_.push_back(std::make_unique<Feed>());
}

LegMerge::~LegMerge() = default;

AckStatus LegMerge::claim(std::uint16_t stream, const Hello& hello, std::string& reason) {
  if (stream >= feeds_.size()) {
    reason = fmt::format("this receiver serves streams 0..{}", feeds_.size() - 1);
    return AckStatus::bad_stream;
  }
  Feed& feed = *feeds_[stream];
  std::unique_lock lock(feed.mutex);
  if (feed.legs == 0) {
    feed.legs = hello.legs;
    feed.feed_id = hello.feed_id;
  } else if (feed.legs != hello.legs || hello.legs == 1 || feed.feed_id != hello.feed_id) {
    reason = "another sender is already connected";
    return AckStatus::stream_busy;
  } else if (feed.leg[hello.leg].claimed) {
    reason = fmt::format("leg {} of this feed is already connected", leg_name(hello.leg));
    return AckStatus::stream_busy;
  }
  feed.leg[hello.leg].claimed = true;
  feed.leg[hello.leg].expected_rtt_ms = hello.expected_rtt_us / 1000.0;
  lock.unlock();
  consumer_.prepare(stream, hello);
  return AckStatus::accepted;
}

void LegMerge::release(std::uint16_t stream, std::uint8_t leg) {
  if (stream >= feeds_.size() || leg >= kMaxLegs) return;
  Feed& feed = *feeds_[stream];
  std::lock_guard lock(feed.mutex);
  feed.leg[leg] = Feed::Leg{};
  if (std::none_of(feed.leg.begin(), feed.leg.end(), [](const auto& l) { return l.claimed; })) {
    feed.legs = 0;
    feed.feed_id = 0;
  }
}

ReassemblerConfig LegMerge::reserved_config(const Hello& hello,
                                            ReassemblerConfig reassembly) const {
  if (hello.legs > 1) reassembly.max_frames_in_flight += held_limit(hello.feed.frames_per_second());
  return reassembly;
}

std::size_t LegMerge::held_limit(double fps) const {
  if (!options_.skew) return options_.max_held_frames;
  // A fixed skew holds what arrives within it (and one more), however long it is.
  const double frames = std::ceil(fps * std::chrono::duration<double>(*options_.skew).count());
  return std::max(options_.max_held_frames, static_cast<std::size_t>(frames) + 1);
}

FrameConsumer& LegMerge::leg(std::uint8_t leg) {
  return *legs_[leg];
}

StreamCounters& LegMerge::counters(std::uint16_t stream, const Hello& hello) {
  return hello.legs > 1 ? stats_.leg(stream, hello.leg) : stats_.stream(stream);
}

void LegMerge::started(std::uint8_t leg, std::uint16_t stream, const Hello& hello) {
  if (hello.legs <= 1) {
    consumer_.session_started(stream, hello);
    return;
  }
  Feed& feed = *feeds_[stream];
  std::lock_guard lock(feed.mutex);
  feed.leg[leg].up = true;
  feed.leg[leg].passed = hello.first_frame_seq;
  feed.fps = hello.feed.frames_per_second();
  StreamCounters& legc = stats_.leg(stream, leg);
  legc.state.store(StreamState::running, std::memory_order_relaxed);
  if (const auto ended_at = feed.leg_ended_at[leg]; ended_at && hello.first_frame_seq > *ended_at) {
    // The leg is back in a new session, past the frames sent while it was away.
    legc.drops.fetch_add(hello.first_frame_seq - *ended_at, std::memory_order_relaxed);
  }
  auto& protection = stats_.stream(stream).protection;
  protection.present.store(true, std::memory_order_relaxed);
  protection.legs_up.fetch_add(1, std::memory_order_relaxed);
  // The window in force from the start (from the legs' plans until they are measured).
  protection.skew_ms.store(static_cast<double>(skew_ns(stream, feed)) / 1e6,
                           std::memory_order_relaxed);
  if (!feed.started) {
    // The feed's own counters, as a receiver's session sets them for a feed of one leg.
    StreamCounters& counters = stats_.stream(stream);
    counters.planned_bps.store(hello.feed.bit_rate_bps, std::memory_order_relaxed);
    counters.state.store(StreamState::running, std::memory_order_relaxed);
    counters.latency_budget_ms.store(hello.latency_budget_ms, std::memory_order_relaxed);
    feed.started = true;
    feed.clean = false;
    feed.end_seq = 0;
    feed.next_seq = hello.first_frame_seq;
    consumer_.session_started(stream, hello);
  }
}

void LegMerge::frame(std::uint8_t leg, std::uint16_t stream, FramePtr frame) {
  Feed& feed = *feeds_[stream];
  std::unique_lock lock(feed.mutex);
  if (feed.legs <= 1) {  // a feed of one leg, the common case, passes straight through
    lock.unlock();
    consumer_.frame_received(stream, std::move(frame));
    return;
  }
  const std::int64_t now = options_.clock();
  const std::uint64_t seq = frame->seq;
  const auto bit = static_cast<std::uint8_t>(1u << leg);
  feed.leg[leg].passed = std::max(feed.leg[leg].passed, seq + 1);
  stats_.leg(stream, leg).add_frame(frame->data.size(), frame->arrival_ns);
  stats_.leg(stream, leg).add_transit(seq, frame->ready_ns, frame->arrival_ns);
  if (seq < feed.next_seq) {
    // The other leg's copy went first: note who else brought it.
    auto found =
        std::lower_bound(feed.delivered.begin(), feed.delivered.end(), seq,
                         [](const Feed::Delivered& d, std::uint64_t s) { return d.seq < s; });
    if (found != feed.delivered.end() && found->seq == seq) found->legs |= bit;
  } else if (auto held = feed.held.find(seq); held != feed.held.end()) {
    held->second.legs |= bit;
  } else {
    feed.held.emplace(seq, Feed::Held{std::move(frame), now, bit});
  }
  release_ready(stream, feed, now);
}

void LegMerge::ended(std::uint8_t leg, std::uint16_t stream, bool clean, std::uint64_t next_seq) {
  Feed& feed = *feeds_[stream];
  // The feed's end is announced without the lock: the consumer may stop the receiver from it
  // (the last feed ended), and the receiver takes its own lock before claiming here. No call
  // for the stream can come meanwhile: its legs' claims are released only after this returns.
  std::unique_lock lock(feed.mutex);
  if (feed.legs <= 1) {
    lock.unlock();
    consumer_.session_ended(stream, clean, next_seq);
    return;
  }
  if (!feed.leg[leg].up) return;
  feed.leg[leg].up = false;
  feed.leg[leg].passed = std::max(feed.leg[leg].passed, next_seq);
  feed.leg_ended_at[leg] = feed.leg[leg].passed;
  stats_.leg(stream, leg)
      .state.store(clean ? StreamState::finished : StreamState::waiting, std::memory_order_relaxed);
  stats_.stream(stream).protection.legs_up.fetch_sub(1, std::memory_order_relaxed);
  if (clean) {
    feed.clean = true;
    feed.end_seq = std::max(feed.end_seq, next_seq);
  }
  release_ready(stream, feed, options_.clock());
  if (feed.any_up()) return;
  // The last leg is gone: what is held goes out now; the feed's session ends with it.
  const std::uint64_t end = std::max({feed.next_seq, feed.end_seq, next_seq});
  StreamCounters& counters = stats_.stream(stream);
  while (!feed.held.empty()) {
    auto first = feed.held.begin();
    counters.drops.fetch_add(first->first - feed.next_seq, std::memory_order_relaxed);
    feed.delivered.push_back({first->first, first->second.legs});
    consumer_.frame_received(stream, std::move(first->second.frame));
    feed.next_seq = first->first + 1;
    feed.held.erase(first);
  }
  if (feed.clean && end > feed.next_seq) {
    counters.drops.fetch_add(end - feed.next_seq, std::memory_order_relaxed);
  }
  for (std::uint8_t i = 0; i < kMaxLegs; ++i) {
    // A leg that went away and never came back did not deliver the rest of the feed.
    if (feed.clean && feed.leg_ended_at[i] && *feed.leg_ended_at[i] < end) {
      stats_.leg(stream, i).drops.fetch_add(end - *feed.leg_ended_at[i], std::memory_order_relaxed);
    }
  }
  retire_delivered(stream, feed, 0);
  feed.started = false;
  feed.leg_ended_at = {};
  counters.state.store(feed.clean ? StreamState::finished : StreamState::failed,
                       std::memory_order_relaxed);
  const bool feed_clean = feed.clean;
  const std::uint64_t feed_end = std::max(end, feed.next_seq);
  lock.unlock();
  consumer_.session_ended(stream, feed_clean, feed_end);
}

std::int64_t LegMerge::skew_ns(std::uint16_t stream, const Feed& feed) const {
  if (options_.skew) return options_.skew->count();
  std::array<double, kMaxLegs> rtt{};
  for (std::size_t i = 0; i < kMaxLegs; ++i) {
    // The path as measured (TCP_INFO, SRT's stats) once known; the sender's plan until then.
    const double measured = stats_.leg(stream, i).rtt_ms.load(std::memory_order_relaxed);
    rtt[i] = measured > 0 ? measured : feed.leg[i].expected_rtt_ms;
  }
  const double jitter = stats_.stream(stream).jitter_ms.load(std::memory_order_relaxed);
  return skew_window(rtt[0], rtt[1], jitter, feed.fps).count();
}

void LegMerge::release_ready(std::uint16_t stream, Feed& feed, std::int64_t now_ns) {
  StreamCounters& counters = stats_.stream(stream);
  const std::int64_t skew = skew_ns(stream, feed);
  counters.protection.skew_ms.store(static_cast<double>(skew) / 1e6, std::memory_order_relaxed);
  while (!feed.held.empty()) {
    auto first = feed.held.begin();
    if (first->first != feed.next_seq) {
      // A gap: give it up once no leg up can still fill it, once the frame after it has waited
      // the skew window, or when holding more would pass the bound.
      const bool nobody_can = std::none_of(feed.leg.begin(), feed.leg.end(), [&](const auto& l) {
        return l.up && l.passed <= feed.next_seq;
      });
      const bool waited = now_ns - first->second.since_ns >= skew;
      if (!nobody_can && !waited && feed.held.size() <= held_limit(feed.fps)) break;
      counters.drops.fetch_add(first->first - feed.next_seq, std::memory_order_relaxed);
      feed.next_seq = first->first;
    }
    feed.delivered.push_back({first->first, first->second.legs});
    FramePtr frame = std::move(first->second.frame);
    feed.held.erase(first);
    ++feed.next_seq;
    consumer_.frame_received(stream, std::move(frame));
  }
  // Who brought a frame is settled once every leg up has passed it; a leg that falls further
  // behind than a late copy may come is as good as down.
  retire_delivered(stream, feed, static_cast<std::size_t>(64 + feed.fps * kLateCopySeconds));
}

void LegMerge::retire_delivered(std::uint16_t stream, Feed& feed, std::size_t keep) {
  auto& protection = stats_.stream(stream).protection;
  while (!feed.delivered.empty()) {
    const Feed::Delivered& oldest = feed.delivered.front();
    const bool settled = std::none_of(feed.leg.begin(), feed.leg.end(), [&](const auto& l) {
      return l.up && l.passed <= oldest.seq;
    });
    if (!settled && feed.delivered.size() <= keep) break;
    if (oldest.legs != 0b11) {
      protection.protected_frames.fetch_add(1, std::memory_order_relaxed);
      protection.only_frames[oldest.legs == 0b01 ? 0 : 1].fetch_add(1, std::memory_order_relaxed);
    }
    feed.delivered.pop_front();
  }
}

}  // namespace hdstream
