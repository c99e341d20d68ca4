// What one phase of an acceptance run (a ramp step or the soak) measured, computed from what
// the sender offered and what the receiver reported back: information rate, frame delay and
// its variation, frame loss with its bursts, and availability second by second.
//   PhaseFigures figures = measure_phase(input, criteria.severe_loss_fraction);
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "stats/transits.hpp"

namespace hdstream {

// One RTT reading (TCP_INFO's smoothed RTT, or SRT's) `t` seconds after the feed's first frame.
struct RttReading {
  double t = 0;
  double rtt_ms = 0;
};

// One feed in one phase, as the sender saw it and its receiver reported it.
struct FeedRecord {
  std::uint16_t stream = 0;
  double frame_rate = 0;             // frames per second of the feed's schedule
  std::uint64_t frames_offered = 0;  // frames the schedule produced: sent + dropped unsent
  // Every frame the receiver delivered whole and verified (FEEDBACK's transit samples, in the
  // order they came): frame sequence number (0 = the phase's first frame) and transit time.
  std::vector<TransitSample> delivered;
  std::uint64_t frames_reported = 0;  // the receiver's own count of those (its last report)
  std::uint64_t bytes_delivered = 0;  // payload bytes of those (its last report)
  std::uint64_t late_frames = 0;      // arrived whole, after the latency budget
  std::uint64_t out_of_order_chunks = 0;
  std::uint64_t duplicate_chunks = 0;
  double jitter_ms = 0;            // RFC 3550 inter-arrival jitter, the receiver's
  std::uint64_t retransmits = 0;   // retransmitted segments (TCP_INFO) or packets (SRT)
  std::uint64_t packets_sent = 0;  // segments or packets sent, for the retransmission ratio
  std::vector<RttReading> rtt;
};

enum class DelayBasis : std::uint8_t {
  one_way,   // the receiver's arrival minus the sender's timestamp: the ends share a clock
  half_rtt,  // half the transport's smoothed RTT
};
std::string_view to_string(DelayBasis basis);

struct PhaseInput {
  std::string name;         // "step 1: 25 %", "soak"
  double offered_mbps = 0;  // the planned aggregate rate of this phase
  DelayBasis delay_basis = DelayBasis::half_rtt;
  // Each phase is a new session: its first seconds are a connection's slow start, not the
  // path. Frames due in them, RTT readings taken in them and retransmissions counted in them
  // (PhaseRecorder) are not measured.
  double warm_up_s = 0;
  std::string variation_not_judged;  // PhaseFigures::variation_not_judged
  std::vector<FeedRecord> feeds;
};

struct Percentiles {
  double p50 = 0;
  double p95 = 0;
  double p99 = 0;
  double max = 0;
};

// One second of the phase by the frames' schedule (second k holds the frames due in it, on
// every feed), whenever they arrived: a cut shows in the seconds whose frames it took.
struct SecondFigures {
  double t = 0;  // the second's start, seconds into the phase
  std::uint64_t frames_offered = 0;
  std::uint64_t frames_lost = 0;
  double rate_mbps = 0;  // bytes of the frames delivered
  double delay_ms = 0;   // median over its frames (one way) or its RTT readings (half RTT)
  std::uint64_t delay_samples = 0;  // none: no delay known for this second (not 0 ms)
  bool errored = false;
  bool severely_errored = false;
};

struct PhaseFigures {
  std::string name;
  double offered_mbps = 0;
  double seconds = 0;    // the phase's length by its schedule, after the warm-up
  double rate_mbps = 0;  // information rate: verified bytes ÷ the phase's length
  DelayBasis delay_basis = DelayBasis::half_rtt;
  double delay_ms = 0;              // median frame delay
  bool delay_measured = false;      // some frame's transit (one way) or RTT reading was measured
  Percentiles delay_variation_ms;   // frame delay minus the feed's least, pooled over feeds
  std::uint64_t delay_samples = 0;  // frames the delay variation was measured on
  // Why the delay variation cannot be judged (empty: it can). srt: libsrt delivers every packet
  // at its send time plus the latency budget, so what arrives has no variation left to see.
  std::string variation_not_judged;
  double jitter_ms = 0;  // RFC 3550, the worst feed's
  std::uint64_t frames_offered = 0;
  std::uint64_t frames_delivered = 0;
  std::uint64_t frames_lost = 0;
  double loss_ratio = 0;
  std::uint64_t loss_events = 0;       // runs of consecutive lost frames on a feed
  std::uint64_t longest_loss_run = 0;  // frames
  std::uint64_t late_frames = 0;
  std::uint64_t out_of_order_chunks = 0;
  std::uint64_t duplicate_chunks = 0;
  std::uint64_t retransmits = 0;
  double retransmission_ratio = 0;
  std::uint64_t errored_seconds = 0;
  std::uint64_t severely_errored_seconds = 0;
  std::uint64_t seconds_counted = 0;  // seconds with frames due in them
  double availability = 1;            // seconds not severely errored ÷ seconds
  // False when the receiver counted more frames than the samples it sent back (a lost report
  // on srt): loss by sequence then over-counts, and the report says so.
  bool samples_complete = true;
  std::vector<SecondFigures> by_second;
};

PhaseFigures measure_phase(const PhaseInput& input, double severe_loss_fraction);

// Nearest-rank percentiles of `values` (reordered); all zero when empty.
Percentiles percentiles(std::vector<double>& values);

}  // namespace hdstream
