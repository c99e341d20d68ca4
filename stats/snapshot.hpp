// Typed, immutable views of the counters at one instant: what reports, /metrics and the panel
// consume. Rates are computed here, from two snapshots, never in the data path.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "stats/counters.hpp"

namespace hdstream {

enum class Role : std::uint8_t { send = 1, recv = 2 };
std::string_view to_string(Role role);

// The receiver's view of a feed as reported back to its sender (FEEDBACK messages).
struct FarEndSnapshot {
  bool valid = false;  // false until the first report arrived
  std::uint64_t bytes = 0;
  std::uint64_t frames = 0;
  std::uint64_t drops = 0;
  std::uint64_t checksum_errors = 0;
  double jitter_ms = 0;
  double fps = 0;         // frames per second delivered, over the receiver's last second
  double latency_ms = 0;  // arrival minus sender timestamp, smoothed
  double age_ms = 0;      // how old the last report is
  std::uint64_t reports = 0;
  // FEEDBACK extension 1; false (and the rest 0) while the receiver sends the base report only.
  bool extended = false;
  std::uint64_t late_frames = 0;       // arrived whole after their play-out deadline (in drops)
  std::uint64_t loss_events = 0;       // runs of consecutive lost frames
  std::uint64_t longest_loss_run = 0;  // frames in the longest run
  std::uint64_t duplicate_chunks = 0;
  std::uint64_t out_of_order_chunks = 0;
  std::uint64_t transits_dropped = 0;  // transit samples lost to a full buffer (take_transits)
  std::string receiver;                // as its HELLO_ACK named itself; empty from older receivers
};

struct SubconnectionSnapshot {
  std::uint8_t index = 0;
  StreamState state = StreamState::invalid;
  std::uint64_t bytes = 0;
  double mbps = 0;  // over the last interval
  double rtt_ms = 0;
  std::uint64_t retransmits = 0;
  std::uint64_t reconnects = 0;
};

// stats/counters.hpp's StripedCounters and SrtCounters, read.
struct StripedSnapshot {
  bool present = false;
  std::uint64_t resent_chunks = 0;
  std::uint64_t duplicate_chunks = 0;
  std::vector<SubconnectionSnapshot> subconnections;  // the slots in use
};
// stats/counters.hpp's ProtectionCounters and each leg's own counters, read.
struct LegSnapshot {
  std::uint8_t leg = 0;  // 0 = A, 1 = B
  StreamState state = StreamState::invalid;
  std::uint64_t bytes = 0;
  double mbps = 0;  // over the last interval
  std::uint64_t frames = 0;
  std::uint64_t drops = 0;  // frames this leg alone lost (its reassembler's, or its sender's)
  double rtt_ms = 0;
  std::uint64_t retransmits = 0;
  std::uint64_t only_frames = 0;  // frames only this leg delivered (receiver)
};
struct ProtectionSnapshot {
  bool present = false;
  std::uint64_t protected_frames = 0;  // frames a single path would have lost
  std::uint32_t legs_up = 0;
  double skew_ms = 0;
  std::vector<LegSnapshot> legs;  // A and B
};
struct SrtSnapshot {
  bool present = false;
  std::uint64_t lost_packets = 0;
  std::uint64_t dropped_packets = 0;
  std::uint64_t belated_packets = 0;
  double buffer_ms = 0;
  std::uint64_t fec_packets = 0;
  std::uint64_t fec_recovered = 0;
  std::uint64_t fec_uncorrectable = 0;
};

struct StreamSnapshot {
  std::uint16_t stream = 0;
  std::string transport;
  StreamState state = StreamState::invalid;
  std::uint64_t bytes = 0;
  std::uint64_t frames = 0;
  std::uint64_t drops = 0;
  std::uint64_t checksum_errors = 0;
  std::uint64_t retransmits = 0;
  std::uint64_t segments_sent = 0;  // sender: TCP data segments / SRT data packets sent
  std::uint64_t planned_bps = 0;
  double mbps = 0;  // over the last interval
  double jitter_ms = 0;
  double rtt_ms = 0;
  std::int64_t first_frame_ns = 0;
  std::int64_t last_frame_ns = 0;
  double latency_ms = 0;                 // receiver: smoothed arrival - sender timestamp
  std::uint32_t latency_budget_ms = 0;   // receiver: the feed's (HELLO), what a frame may be late
  FarEndSnapshot far_end;                // sender: what the receiver reports
  std::uint64_t outages = 0;             // sessions that broke mid-feed
  double outage_s = 0;                   // time without a session after a break, ongoing included
  std::uint64_t outage_frames_lost = 0;  // frames lost across those breaks (by sequence)

  // Receiver-side media figures; meaningful when `media` is true.
  bool media = false;
  std::uint64_t frames_decoded = 0;
  std::uint64_t decode_errors = 0;
  std::uint64_t dropped_before_decode = 0;
  std::uint32_t decode_queue_depth = 0;
  std::uint32_t decode_queue_capacity = 0;
  std::uint64_t frames_recorded = 0;        // summed over the feed's recordings
  std::uint64_t dropped_before_record = 0;  // a recording's queue full: the disk fell behind
  std::uint8_t audio_channels = 0;          // 0: a video-only feed
  std::uint64_t audio_gaps = 0;             // runs of frames whose sound never came
  std::uint64_t audio_silence_samples = 0;  // silence standing in for them, 48 kHz samples
  std::uint64_t audio_samples_played = 0;   // rendered by the --audio-output sink
  bool audio_heard = true;                  // the device hears it (the program's feed)
  std::optional<double> av_offset_ms;       // the last lip-sync measure; + = the sound trails
  SoundLevels sound;                        // levels per channel pair, the silence alarm
  bool frozen = false;                      // the picture has not changed for 2 s
  bool black = false;                       // the picture has been black for 1 s
  double latency_ms_p50 = 0;                // sender frame ready -> decoded, over the whole run
  double latency_ms_p99 = 0;
  StripedSnapshot striped;        // transport-specific extras: striped feeds (mtcp, srt)
  SrtSnapshot srt;                // srt feeds
  ProtectionSnapshot protection;  // protected feeds (two legs)
};

struct Snapshot {
  double t = 0;  // seconds since the run started
  Role role = Role::send;
  std::vector<StreamSnapshot> streams;

  double aggregate_mbps() const;
  std::uint64_t aggregate_drops() const;
};

}  // namespace hdstream
