#include "acceptance/phase_recorder.hpp"

#include "common/clock.hpp"

namespace hdstream {

PhaseRecorder::PhaseRecorder(StatsRegistry& stats, double frame_rate) : stats_(stats) {
  const Snapshot first = stats_.sample();
  for (const auto& s : first.streams) {
    feeds_.push_back(FeedRecord{.stream = s.stream, .frame_rate = frame_rate});
  }
}

void PhaseRecorder::take(const Snapshot& snapshot) {
  for (std::size_t i = 0; i < feeds_.size() && i < snapshot.streams.size(); ++i) {
    FeedRecord& feed = feeds_[i];
    const StreamSnapshot& s = snapshot.streams[i];
    // On the schedule's time axis: seconds since the feed's first frame.
    if (s.rtt_ms > 0 && s.first_frame_ns > 0) {
      feed.rtt.push_back(
          {.t = static_cast<double>(wall_clock_ns() - s.first_frame_ns) / 1e9, .rtt_ms = s.rtt_ms});
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
    feed.retransmits = s.retransmits;
    feed.packets_sent = s.segments_sent;
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
