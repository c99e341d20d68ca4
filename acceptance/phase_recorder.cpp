#include "acceptance/phase_recorder.hpp"

#include <algorithm>

#include "common/clock.hpp"

namespace hdstream {

PhaseRecorder::PhaseRecorder(StatsRegistry& stats, double frame_rate, double warm_up_s)
    : stats_(stats), warm_up_s_(warm_up_s) {
  const Snapshot first = stats_.sample();
  for (const auto& s : first.streams) {
    feeds_.push_back(FeedRecord{.stream = s.stream, .frame_rate = frame_rate});
  }
  after_warm_up_.resize(feeds_.size());
}

void PhaseRecorder::take(const Snapshot& snapshot) {
  for (std::size_t i = 0; i < feeds_.size() && i < snapshot.streams.size(); ++i) {
    FeedRecord& feed = feeds_[i];
    const StreamSnapshot& s = snapshot.streams[i];
    if (s.first_frame_ns <= 0) continue;
    // On the schedule's time axis: seconds since the feed's first frame.
    const double t = static_cast<double>(wall_clock_ns() - s.first_frame_ns) / 1e9;
    if (s.rtt_ms > 0) feed.rtt.push_back({.t = t, .rtt_ms = s.rtt_ms});
    if (!after_warm_up_[i] && t >= warm_up_s_) {
      after_warm_up_[i] = TransportCounts{.retransmits = s.retransmits, .sent = s.segments_sent};
    }
    for (const TransitSample& sample : stats_.take_transits(i)) feed.delivered.push_back(sample);
  }
}

void PhaseRecorder::tick(const Snapshot& snapshot) {
  take(snapshot);
}

std::vector<FeedRecord> PhaseRecorder::finish(const Snapshot& last) {
  take(last);
  for (std::size_t i = 0; i < feeds_.size() && i < last.streams.size(); ++i) {
    FeedRecord& feed = feeds_[i];
    const StreamSnapshot& s = last.streams[i];
    feed.frames_offered = s.frames + s.drops;
    // The transport's counts since the warm-up (none if the phase ended within it).
    const TransportCounts start = after_warm_up_[i].value_or(
        TransportCounts{.retransmits = s.retransmits, .sent = s.segments_sent});
    feed.retransmits = s.retransmits - std::min(s.retransmits, start.retransmits);
    feed.packets_sent = s.segments_sent - std::min(s.segments_sent, start.sent);
    const FarEndSnapshot& far = s.far_end;
    feed.frames_reported = far.frames;
    feed.bytes_delivered = far.bytes;
    feed.jitter_ms = far.jitter_ms;
    feed.late_frames = far.late_frames;
    feed.out_of_order_chunks = far.out_of_order_chunks;
    feed.duplicate_chunks = far.duplicate_chunks;
  }
  return std::move(feeds_);
}

}  // namespace hdstream
