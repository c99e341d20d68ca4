// What the operator's panel shows, computed from typed snapshots without Qt: one row per feed
// (a stream id at one receiving end, its sender and receiver sides paired: gui/feed_pairing.hpp),
// rates over sliding windows, health
// lights averaged over a few seconds with hysteresis, stale detection, an aggregate row and
// 60 s of chart history. Fed on a timer (~10 Hz), never per packet.
//   PanelModel model;  model.update(inputs, now_s);  for (const FeedRow& r : model.rows()) ...
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "gui/feed_pairing.hpp"
#include "stats/labeled_snapshot.hpp"
#include "stats/sound_levels.hpp"

namespace hdstream {

struct PanelThresholds {
  double drops_warn_fraction = 0.01;  // > 1% of frames dropped over the window: yellow
  double drops_bad_fraction = 0.05;   // > 5%: red
  double rate_warn_fraction = 0.95;   // < 95% of the nominal rate: yellow
  double window_s = 3.0;              // health is judged over this much history
  double rate_window_s = 1.0;         // the Mbps / fps figures shown
  double recover_s = 2.0;             // a light turns better only after this long being better
  double stale_after_s = 3.0;         // no new data for this long: the row greys out
  double history_s = 60.0;            // chart span
  double history_step_s = 0.5;        // chart resolution
  double no_signal_after_s = 1.0;     // a decoded feed with no new picture for this long
};

enum class Health : std::uint8_t { unknown = 0, good, warn, bad, stale };
std::string_view to_string(Health health);

// One path of a protected feed (send --dest-b), as its row shows it.
struct LegRow {
  std::uint8_t leg = 0;  // 0 = A, 1 = B
  StreamState state = StreamState::invalid;
  bool up = false;  // running at every end that reports it
  double mbps = 0;  // over rate_window_s, from the same end as the row's rate
  double rtt_ms = 0;
  std::uint64_t frames = 0;
  std::uint64_t drops = 0;  // frames this leg alone lost
  std::uint64_t retransmits = 0;
  std::uint64_t only_frames = 0;  // frames only this leg delivered (the receiver counts them)
};

struct FeedRow {
  std::string key;  // "stream@HOST:PORT" of the receiving end: one row per feed
  std::uint16_t stream = 0;
  std::string label;  // "#3", or "portland-3 #0" when other hosts also carry a stream 0
  StreamState state = StreamState::invalid;
  bool has_send = false;
  bool has_recv = false;
  double mbps = 0;  // over rate_window_s, receiver side when known
  double planned_mbps = 0;
  std::uint64_t drops = 0;   // cumulative, both sides
  std::uint64_t frames = 0;  // delivered (receiver / far end), else sent
  double drop_percent = 0;   // drops / (frames + drops)
  bool has_jitter = false;
  double jitter_ms = 0;
  bool has_rtt = false;
  double rtt_ms = 0;
  std::uint64_t retransmits = 0;
  bool has_latency = false;
  double latency_ms = 0;
  std::uint32_t latency_budget_ms = 0;
  bool has_fps = false;
  double fps = 0;
  bool far_end = false;  // receiver figures come from the sender's FEEDBACK
  std::string transport;
  std::string destination;    // receiving end HOST:PORT (a wildcard listen: the polled host)
  std::string sender_host;    // the sender's name or address; "?" when no sender reports
  std::string receiver_host;  // the receiver's name or address (the destination's host)
  std::string hosts;          // "sender-host -> receiver-host" (an arrow, U+2192)
  // The receiving end decodes this feed: the panel shows its picture (a thumbnail from the
  // process itself, or from `picture_from`'s /thumbnail when `hdstream monitor` polled it there).
  bool has_picture = false;
  std::string picture_from;  // HOST:PORT of the receiving end's metrics server; empty in process
  bool frozen = false;       // the receiver's picture alarms (media/picture_watch)
  bool black = false;
  bool no_signal = false;  // not running, or no new decoded picture for no_signal_after_s
                           // (on the receiver's clock)
  // Its sound, as the receiver meters it (0 channels: a video-only feed).
  std::uint8_t audio_channels = 0;
  SoundLevels sound;
  std::optional<double> av_offset_ms;  // the last lip-sync measure; + = the sound trails
  // Two-path protection: a feed sent in full over two paths. The receiver's figures when it
  // reports them (it merges the legs and alone counts what each saved), else the sender's.
  bool is_protected = false;
  std::uint32_t legs_up = 0;           // the fewer its two ends report: either may see a loss first
  std::uint64_t protected_frames = 0;  // frames a single path would have lost
  double skew_ms = 0;                  // how long the receiver waits for the later leg
  std::vector<LegRow> legs;            // A, then B
  Health health = Health::unknown;
  std::string health_reason;  // why it is not green, one short phrase
  double window_drop_fraction = 0;
  double window_rate_fraction = 0;  // window rate / planned (0 when unknown)
};

struct AggregateRow {
  std::size_t feeds = 0;
  std::size_t healthy = 0;
  double mbps = 0;
  double planned_mbps = 0;
  std::uint64_t drops = 0;
  std::uint64_t frames = 0;
  Health health = Health::unknown;
};

struct HistoryPoint {
  double t = 0;  // panel clock
  double aggregate_mbps = 0;
  std::vector<double> feed_mbps;  // indexed like rows(); shorter when feeds appeared later
};

// Cell texts shared by the Qt panel and the console rendering of `hdstream monitor`.
std::string format_drops(const FeedRow& row);    // "3 / 1200 (0.25%)"
std::string format_latency(const FeedRow& row);  // "2.31 ms", or with the budget's margin
// A protected feed's legs at a glance, "A \u25cf B \u25cb" (filled: up, hollow: down); empty
// for a plain feed.
std::string format_legs(const FeedRow& row);
std::string format_protection(const FeedRow& row);  // "12 protected · skew 40.0 ms"
// "leg B: waiting, 0.0 Mbps, RTT 35.25 ms, 3 drops, 2 retx, 151 only on this leg"
std::string format_leg(const LegRow& leg);
// A feed's lip-sync, "A/V +12.0 ms" (+: the sound trails), "" before the first measure.
std::string format_av_offset(const FeedRow& row);
// Its meters in figures, a line a pair: "1-2: peak -20.0, RMS -23.0, hold -6.0 dBFS", then
// "SILENT" when the alarm is raised, "no signal" when the feed stopped.
std::string format_sound_levels(const FeedRow& row);

class PanelModel {
 public:
  explicit PanelModel(PanelThresholds thresholds = {});

  void update(std::span<const PanelInput> inputs, double now_s);

  const std::vector<FeedRow>& rows() const { return rows_; }
  const AggregateRow& aggregate() const { return aggregate_; }
  const std::deque<HistoryPoint>& history() const { return history_; }
  const PanelThresholds& thresholds() const { return thresholds_; }

 private:
  struct Sample {
    double t = 0;  // the source's own clock (snapshot t): rates do not depend on polling
    std::uint64_t bytes = 0;
    std::uint64_t frames = 0;
    std::uint64_t drops = 0;
    std::array<std::uint64_t, 2> leg_bytes{};  // a protected feed's, by leg
  };
  struct Track {
    std::deque<Sample> samples;
    double last_change_s = -1;  // panel clock when the data last moved
    double last_fresh_s = -1;
    Health shown = Health::unknown;
    Health pending = Health::unknown;
    double better_since_s = -1;
    std::uint64_t decoded = 0;  // pictures the receiver had decoded when last seen
    // The receiver's own clock (snapshot t) when that count last moved: a monitor polling
    // every 2 s sees it move once a poll, and NO SIGNAL must not flicker for it.
    std::optional<double> decoded_change_t;
  };

  void judge(FeedRow& row, Track& track, double now_s);
  // The row a feed's data goes to: a feed keeps its row when its sender and receiver, first
  // seen apart, are later paired under the receiver's key.
  std::string row_key(const FeedSides& feed);
  void label_rows();

  PanelThresholds thresholds_;
  std::vector<FeedRow> rows_;
  std::map<std::string, Track> tracks_;
  std::map<std::string, std::string> row_of_side_;  // a side's key -> the row it feeds
  AggregateRow aggregate_;
  std::deque<HistoryPoint> history_;
};

}  // namespace hdstream
