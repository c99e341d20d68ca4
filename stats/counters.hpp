// Per-stream counters written by the data path: relaxed atomics, one writer per field at a time,
// read by the snapshot timer. Cumulative values only; rates are computed from snapshots.
//   counters.bytes.fetch_add(n, std::memory_order_relaxed);
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <string_view>

#include "stats/latency.hpp"
#include "stats/shared_value.hpp"
#include "stats/sound_levels.hpp"
#include "stats/transits.hpp"

namespace hdstream {

enum class StreamState : std::uint8_t {
  invalid = 0,
  waiting = 1,  // not connected yet (sender connecting, receiver awaiting a session)
  running = 2,
  finished = 3,  // ended cleanly
  failed = 4,    // gave up: connection refused by the peer or lost for good
};

std::string_view to_string(StreamState state);

// One connection of a striped feed: an mtcp sub-connection or an srt stripe. Slots whose state is
// `invalid` are unused.
struct SubconnectionCounters {
  std::atomic<std::uint64_t> bytes{0};        // payload bytes written (send) / read (recv)
  std::atomic<double> rtt_ms{0};              // TCP_INFO srtt (docs/telemetry.md#rtt)
  std::atomic<std::uint64_t> retransmits{0};  // TCP_INFO total_retrans, over every reconnection
  std::atomic<std::uint64_t> reconnects{0};   // times re-established after breaking
  std::atomic<StreamState> state{StreamState::invalid};
};
inline constexpr std::size_t kMaxSubconnectionCounters = 16;

// Transport-specific figures beyond the interval schema, one typed structure per transport (as
// GStreamer's srt elements report a structure per caller): logged, printed in text mode, and in
// JSON as separate `link` / `subconn` lines.
// A feed striped over several connections (mtcp's sub-connections, srt's stripes): each
// connection's figures and what their breaks cost.
struct StripedCounters {
  std::atomic<bool> present{false};                // a striped session filled these in
  std::atomic<std::uint64_t> resent_chunks{0};     // re-sent after a sub-connection broke
  std::atomic<std::uint64_t> duplicate_chunks{0};  // arrived twice (harmless)
  std::array<SubconnectionCounters, kMaxSubconnectionCounters> subconnections;
};
// srt: libsrt's own statistics of the connection.
struct SrtCounters {
  std::atomic<bool> present{false};               // an SRT session filled these in
  std::atomic<std::uint64_t> lost_packets{0};     // detected lost (then retransmitted)
  std::atomic<std::uint64_t> dropped_packets{0};  // too late, dropped (frames then drop)
  std::atomic<std::uint64_t> belated_packets{0};  // arrived after their play time
  std::atomic<double> buffer_ms{0};               // receive (or send) buffer, ms
  // libsrt's FEC filter (--srt-fec); all zero without it.
  std::atomic<std::uint64_t> fec_packets{0};        // FEC packets sent (or received)
  std::atomic<std::uint64_t> fec_recovered{0};      // receiver: lost packets FEC rebuilt
  std::atomic<std::uint64_t> fec_uncorrectable{0};  // receiver: lost packets FEC could not
};

// A protected feed: sent in full over two paths, merged at the receiver (transport/leg_merge.hpp).
// Each leg's own figures (state, bytes, RTT, its drops) are a StreamCounters of their own
// (StatsRegistry::leg); these are what the merge saw of both.
struct ProtectionCounters {
  std::atomic<bool> present{false};                // a protected feed filled these in
  std::atomic<std::uint64_t> protected_frames{0};  // delivered by one leg only: one path lost them
  std::array<std::atomic<std::uint64_t>, 2> only_frames{};  // of those, the ones leg i delivered
  std::atomic<std::uint32_t> legs_up{0};
  std::atomic<double> skew_ms{0};  // the skew window now
};

// A feed that lost its path mid-feed (its session broke, or every mtcp sub-connection), from
// the break until the feed is back (both ends): how many times, how long, and the frames lost
// across them, by sequence number: the gaps between frames delivered (receiver) or handed to
// the transport (sender) from the break until the feed has settled, one latency budget and a
// second after the path's return, when every frame in flight at the break was delivered or
// given up. Written by the stream's session and the frame path, which never run concurrently.
struct OutageCounters {
  std::atomic<std::uint64_t> count{0};
  std::atomic<std::uint64_t> ended_ns{0};  // total length of the outages that ended
  std::atomic<std::int64_t> since_ns{0};   // wall_clock_ns() at the current break (0: none)
  std::atomic<std::uint64_t> frames_lost{0};

  void begin(std::int64_t now_ns) {
    if (since_ns.load(std::memory_order_relaxed) != 0) return;
    count.fetch_add(1, std::memory_order_relaxed);
    since_ns.store(now_ns, std::memory_order_relaxed);
    awaiting_frame_ = true;
  }
  // The path is back; gaps count as the outage's for `latency_budget` and a second more.
  // Returns how long the outage lasted (0: none was in progress).
  std::int64_t end(std::int64_t now_ns, std::chrono::milliseconds latency_budget) {
    const std::int64_t since = since_ns.exchange(0, std::memory_order_relaxed);
    if (since == 0) return 0;
    ended_ns.fetch_add(static_cast<std::uint64_t>(now_ns - since), std::memory_order_relaxed);
    settled_ns_ =
        now_ns + std::chrono::nanoseconds(latency_budget + std::chrono::seconds(1)).count();
    return now_ns - since;
  }
  // Every frame delivered (receiver) or handed to the transport (sender), in order, at `now_ns`
  // (wall clock). A restarted sender numbering from its first frame again loses nothing here.
  void note_frame(std::uint64_t seq, std::int64_t now_ns) {
    const bool counting =
        awaiting_frame_ || since_ns.load(std::memory_order_relaxed) != 0 || now_ns < settled_ns_;
    awaiting_frame_ = false;
    if (counting && next_seq_ != 0 && seq > next_seq_) {
      frames_lost.fetch_add(seq - next_seq_, std::memory_order_relaxed);
    }
    next_seq_ = seq + 1;
  }
  // Total time without the feed's path, the current outage included.
  double seconds(std::int64_t now_ns) const {
    const std::int64_t since = since_ns.load(std::memory_order_relaxed);
    const std::int64_t ongoing = since != 0 ? now_ns - since : 0;
    return static_cast<double>(ended_ns.load(std::memory_order_relaxed) +
                               static_cast<std::uint64_t>(ongoing)) /
           1e9;
  }

 private:
  bool awaiting_frame_ = false;  // the first frame after a break counts, however late
  std::int64_t settled_ns_ = 0;  // gaps before this time count as the last outage's
  std::uint64_t next_seq_ = 0;
};

struct StreamCounters {
  std::atomic<std::uint64_t> bytes{0};            // payload bytes of frames sent / received
  std::atomic<std::uint64_t> frames{0};           // frames sent / received whole and verified
  std::atomic<std::uint64_t> drops{0};            // frames missing, incomplete or late
  std::atomic<std::uint64_t> checksum_errors{0};  // chunks or frames failing verification
  std::atomic<std::uint64_t> retransmits{0};      // TCP_INFO total_retrans (or transport's)
  std::atomic<std::uint64_t> segments_sent{0};    // sender: TCP data segments / SRT packets
  std::atomic<double> jitter_ms{0};               // RFC 3550 inter-arrival jitter
  std::atomic<double> rtt_ms{0};                  // path's smoothed RTT (docs/telemetry.md#rtt)
  std::atomic<std::uint64_t> planned_bps{0};      // nominal feed rate, for the verdict
  std::atomic<std::int64_t> first_frame_ns{0};    // wall clock of first / last frame (0: none)
  std::atomic<std::int64_t> last_frame_ns{0};
  std::atomic<StreamState> state{StreamState::waiting};
  // Receiver: smoothed frame latency, arrival minus the sender's timestamp (same clock on one
  // host; NTP/PTP-synchronised hosts otherwise). Smoothed like jitter (gain 1/16).
  std::atomic<double> latency_ms{0};
  std::atomic<std::uint32_t> latency_budget_ms{0};  // how long the receiver may hold a frame
  OutageCounters outage;  // sessions that broke and resumed (or are still broken)
  // Receiver: how frames were lost and chunks arrived, as the reassembler judged them
  // (protocol/reassembler.hpp, published by transport/reassembly_publisher), and each frame
  // delivered since the last FEEDBACK report; all sent to the sender in FEEDBACK.
  std::atomic<std::uint64_t> late_frames{0};       // arrived whole after being given up (in drops)
  std::atomic<std::uint64_t> loss_events{0};       // runs of consecutive lost frames
  std::atomic<std::uint64_t> longest_loss_run{0};  // frames in the longest run
  std::atomic<std::uint64_t> duplicate_chunks{0};  // chunks that had already been received
  std::atomic<std::uint64_t> out_of_order_chunks{0};  // after a chunk of a later place
  TransitBuffer transits{kReceiverTransitCapacity};

  // Sender: the far end's own view of this feed, from its FEEDBACK reports
  // (docs/PROTOCOL.md#feedback).
  struct FarEnd {
    std::atomic<std::int64_t> received_ns{0};  // our wall clock at the last report (0: none)
    std::atomic<std::uint64_t> bytes{0};
    std::atomic<std::uint64_t> frames{0};
    std::atomic<std::uint64_t> drops{0};
    std::atomic<std::uint64_t> checksum_errors{0};
    std::atomic<double> jitter_ms{0};
    std::atomic<double> fps{0};
    std::atomic<double> latency_ms{0};
    std::atomic<std::uint64_t> reports{0};
    // FEEDBACK extension 1 (false: the receiver is older and sends none of what follows).
    std::atomic<bool> extended{false};
    std::atomic<std::uint64_t> late_frames{0};
    std::atomic<std::uint64_t> loss_events{0};
    std::atomic<std::uint64_t> longest_loss_run{0};
    std::atomic<std::uint64_t> duplicate_chunks{0};
    std::atomic<std::uint64_t> out_of_order_chunks{0};
    // The reports' per-frame transit samples, until StatsRegistry::take_transits(); when full
    // the oldest go (counted: transits.dropped()).
    TransitBuffer transits{kSenderTransitCapacity};
    // The receiver as its HELLO_ACK named itself ("portland-rx (hdstream 0.1.0)"; empty from
    // older receivers, and on a protected feed's stream: each leg has its own).
    SharedText receiver;
  } far_end;

  // Receiver-side media figures (set once a decoder runs for this stream).
  std::atomic<bool> media{false};  // a decoder is attached
  std::atomic<std::uint64_t> frames_decoded{0};
  std::atomic<std::uint64_t> decode_errors{0};          // frames the decoder rejected
  std::atomic<std::uint64_t> dropped_before_decode{0};  // decode queue full (also in drops)
  std::atomic<std::uint32_t> decode_queue_depth{0};     // frames waiting for the decoder now
  std::atomic<std::uint32_t> decode_queue_capacity{0};
  LatencyHistogram decode_latency;  // sender frame ready -> decoded
  // Recordings (--output file:), each behind its own queue: frames written, summed over the
  // feed's recordings, and frames a recording's queue dropped because the disk fell behind.
  std::atomic<std::uint64_t> frames_recorded{0};
  std::atomic<std::uint64_t> dropped_before_record{0};
  // A feed with audio: runs of frames whose sound never came (lost, late or refused), and the
  // samples of silence that stand in for them.
  std::atomic<std::uint8_t> audio_channels{0};  // from the HELLO; 0: video only
  std::atomic<std::uint64_t> audio_gaps{0};
  std::atomic<std::uint64_t> audio_silence_samples{0};
  std::atomic<std::uint64_t> audio_samples_played{0};  // rendered by the --audio-output sink
  // The device hears it (with a program output, only the feed on air is heard).
  std::atomic<bool> audio_heard{true};
  // The last lip-sync measure (a sync marker's beep at the audio sink less its flash at the
  // picture sinks; positive: the sound trails), once one was made.
  std::atomic<std::int64_t> av_offset_us{0};
  std::atomic<bool> av_offset_measured{false};
  // The sound's levels per channel pair and the silence alarm, after the last frame that came
  // (media/audio_watch).
  SharedValue<SoundLevels> sound_levels;
  // The decoded picture now: unchanged for 2 s (frozen), black for 1 s (media/picture_watch).
  std::atomic<bool> frozen{false};
  std::atomic<bool> black{false};
  StripedCounters striped;        // striped feeds only (mtcp, srt --conns K)
  SrtCounters srt;                // srt feeds only
  ProtectionCounters protection;  // protected feeds (two legs) only

  // Receiver: a frame delivered whole and verified, for the next FEEDBACK report's samples.
  void add_transit(std::uint64_t frame_seq, std::int64_t ready_ns, std::int64_t arrival_ns) {
    const std::int64_t transit_us = (arrival_ns - ready_ns) / 1000;
    transits.push(
        {static_cast<std::uint32_t>(frame_seq),
         static_cast<std::int32_t>(std::clamp<std::int64_t>(transit_us, INT32_MIN, INT32_MAX))});
  }
  // One more run of `run_frames` lost frames, found outside the reassembler (a session's gap, a
  // frame failing end-to-end verification); after `drops` counted them.
  void add_loss_run(std::uint64_t run_frames) {
    if (run_frames == 0) return;
    loss_events.fetch_add(1, std::memory_order_relaxed);
    if (run_frames > longest_loss_run.load(std::memory_order_relaxed)) {
      longest_loss_run.store(run_frames, std::memory_order_relaxed);
    }
  }

  void add_frame(std::uint64_t frame_bytes, std::int64_t now_ns) {
    bytes.fetch_add(frame_bytes, std::memory_order_relaxed);
    frames.fetch_add(1, std::memory_order_relaxed);
    std::int64_t unset = 0;
    first_frame_ns.compare_exchange_strong(unset, now_ns, std::memory_order_relaxed);
    last_frame_ns.store(now_ns, std::memory_order_relaxed);
  }
};

}  // namespace hdstream
