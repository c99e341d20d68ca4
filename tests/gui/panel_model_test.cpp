// The panel model on synthetic snapshots: rates, health thresholds with averaging and
// hysteresis, stale detection, pairing, 16 feeds. No Qt.
#include <gtest/gtest.h>

#include "gui/panel_model.hpp"

#include <algorithm>
#include <array>

namespace hdstream {
namespace {

constexpr double kFps = 30000.0 / 1001.0;
constexpr std::uint64_t kRateBps = 270'000'000;

// A feed simulated at 10 Hz: cumulative counters that grow like a real one.
struct FakeFeed {
  double rate_fraction = 1.0;  // of kRateBps
  double drop_fraction = 0.0;  // of frames
  double frames = 0;
  double drops = 0;
  double bytes = 0;
  StreamState state = StreamState::running;
  bool decoded = false;  // the receiver decodes it: picture state in its snapshot
  bool frozen = false;
  bool black = false;
  std::uint8_t audio_channels = 0;  // with sound: its levels in the snapshot
  SoundLevels sound;
  std::optional<double> av_offset_ms;

  void advance(double dt_s) {
    if (state != StreamState::running) return;
    const double produced = kFps * dt_s;
    frames += produced * (1 - drop_fraction);
    drops += produced * drop_fraction;
    bytes += static_cast<double>(kRateBps) * rate_fraction / 8 * dt_s;
  }
};

StreamSnapshot stream_of(std::uint16_t id, const FakeFeed& feed) {
  StreamSnapshot s;
  s.stream = id;
  s.transport = "tcp";
  s.state = feed.state;
  s.bytes = static_cast<std::uint64_t>(feed.bytes);
  s.frames = static_cast<std::uint64_t>(feed.frames);
  s.drops = static_cast<std::uint64_t>(feed.drops);
  s.planned_bps = kRateBps;
  s.jitter_ms = 0.4;
  s.rtt_ms = 0.05;
  s.latency_ms = 1.5;
  s.media = feed.decoded;
  s.frames_decoded = feed.decoded ? static_cast<std::uint64_t>(feed.frames) : 0;
  s.frozen = feed.frozen;
  s.black = feed.black;
  s.audio_channels = feed.audio_channels;
  s.sound = feed.sound;
  s.av_offset_ms = feed.av_offset_ms;
  return s;
}

PanelInput input_of(Role role, double t, std::vector<FakeFeed>& feeds, double fresh_s,
                    std::string endpoint = "127.0.0.1:9000") {
  PanelInput input;
  input.source.host = role == Role::send ? "seattle" : "portland";
  input.source.endpoint = std::move(endpoint);
  input.source.snapshot.role = role;
  input.source.snapshot.t = t;
  for (std::size_t i = 0; i < feeds.size(); ++i) {
    input.source.snapshot.streams.push_back(stream_of(static_cast<std::uint16_t>(i), feeds[i]));
  }
  input.fresh_s = fresh_s;
  return input;
}

// Runs `seconds` of 10 Hz updates of a receiver-side source.
void run(PanelModel& model, std::vector<FakeFeed>& feeds, double& t, double seconds) {
  for (double end = t + seconds; t < end - 1e-9;) {
    t += 0.1;
    for (auto& feed : feeds) feed.advance(0.1);
    std::vector<PanelInput> inputs{input_of(Role::recv, t, feeds, t)};
    model.update(inputs, t);
  }
}

TEST(PanelModel, RatesAndGreenLightForAHealthyFeed) {
  PanelModel model;
  std::vector<FakeFeed> feeds(1);
  double t = 0;
  run(model, feeds, t, 5);
  ASSERT_EQ(model.rows().size(), 1u);
  const FeedRow& row = model.rows()[0];
  EXPECT_NEAR(row.mbps, 270.0, 2.0);
  EXPECT_NEAR(row.fps, kFps, 1.5);
  EXPECT_NEAR(row.planned_mbps, 270.0, 1e-9);
  EXPECT_EQ(row.health, Health::good);
  EXPECT_EQ(row.drops, 0u);
  EXPECT_EQ(model.aggregate().feeds, 1u);
  EXPECT_EQ(model.aggregate().healthy, 1u);
  EXPECT_NEAR(model.aggregate().mbps, 270.0, 2.0);
}

TEST(PanelModel, DropThresholdsYellowAboveOnePercentRedAboveFive) {
  PanelModel model;
  std::vector<FakeFeed> feeds(3);
  feeds[1].drop_fraction = 0.02;
  feeds[2].drop_fraction = 0.10;
  double t = 0;
  run(model, feeds, t, 6);
  EXPECT_EQ(model.rows()[0].health, Health::good);
  EXPECT_EQ(model.rows()[1].health, Health::warn);
  EXPECT_EQ(model.rows()[2].health, Health::bad);
  EXPECT_EQ(model.aggregate().health, Health::bad);
  EXPECT_NEAR(model.rows()[2].drop_percent, 10.0, 1.0);
  EXPECT_EQ(format_drops(model.rows()[0]).rfind("0 / ", 0), 0u);
}

TEST(PanelModel, LowRateIsYellow) {
  PanelModel model;
  std::vector<FakeFeed> feeds(2);
  feeds[1].rate_fraction = 0.90;
  double t = 0;
  run(model, feeds, t, 5);
  EXPECT_EQ(model.rows()[0].health, Health::good);
  EXPECT_EQ(model.rows()[1].health, Health::warn);
  EXPECT_NE(model.rows()[1].health_reason.find("nominal"), std::string::npos);
}

TEST(PanelModel, AShortBurstDoesNotFlickerAndRecoveryWaits) {
  PanelThresholds thresholds;
  PanelModel model(thresholds);
  std::vector<FakeFeed> feeds(1);
  double t = 0;
  run(model, feeds, t, 5);
  ASSERT_EQ(model.rows()[0].health, Health::good);
  // One lost frame in 3 s of ~90 frames is ~1.1%: over the window, not per sample, so the
  // light turns yellow (not red, as a per-100 ms ratio of 1/3 would).
  feeds[0].drops += 1;
  run(model, feeds, t, 0.1);
  EXPECT_EQ(model.rows()[0].health, Health::warn);
  // Once the drop leaves the 3 s window the feed is better, but the light waits recover_s.
  run(model, feeds, t, thresholds.window_s + 0.3);
  EXPECT_EQ(model.rows()[0].health, Health::warn) << "recovered without hysteresis";
  run(model, feeds, t, thresholds.recover_s + 0.2);
  EXPECT_EQ(model.rows()[0].health, Health::good);
}

TEST(PanelModel, StaleWhenReportsStopOrFramesStop) {
  PanelModel model;
  std::vector<FakeFeed> feeds(2);
  double t = 0;
  run(model, feeds, t, 3);
  // Feed 1's frames stop while its source keeps reporting: stale after 3 s.
  feeds[1].state = StreamState::running;
  const FakeFeed frozen = feeds[1];
  for (int i = 0; i < 40; ++i) {
    t += 0.1;
    feeds[0].advance(0.1);
    feeds[1] = frozen;
    std::vector<PanelInput> inputs{input_of(Role::recv, t, feeds, t)};
    model.update(inputs, t);
  }
  EXPECT_EQ(model.rows()[0].health, Health::good);
  EXPECT_EQ(model.rows()[1].health, Health::stale);
  // The whole source goes silent (fresh_s stops advancing): every row greys out.
  const double last_fresh = t;
  for (int i = 0; i < 40; ++i) {
    t += 0.1;
    std::vector<PanelInput> inputs{input_of(Role::recv, last_fresh, feeds, last_fresh)};
    model.update(inputs, t);
  }
  EXPECT_EQ(model.rows()[0].health, Health::stale);
  EXPECT_EQ(model.aggregate().mbps, 0.0);
}

TEST(PanelModel, ADecodedFeedsPictureStateAndNoSignalWithinASecond) {
  PanelModel model;
  std::vector<FakeFeed> feeds(2);
  feeds[0].decoded = true;
  double t = 0;
  run(model, feeds, t, 2);
  ASSERT_EQ(model.rows().size(), 2u);
  EXPECT_TRUE(model.rows()[0].has_picture);
  EXPECT_FALSE(model.rows()[0].no_signal);
  EXPECT_TRUE(model.rows()[0].picture_from.empty()) << "in process: the local thumbnails";
  EXPECT_FALSE(model.rows()[1].has_picture) << "not decoded: no picture to show";

  // The picture alarms come through as the receiver raises and clears them.
  feeds[0].frozen = true;
  run(model, feeds, t, 0.1);
  EXPECT_TRUE(model.rows()[0].frozen);
  EXPECT_FALSE(model.rows()[0].black);
  feeds[0].frozen = false;
  feeds[0].black = true;
  run(model, feeds, t, 0.1);
  EXPECT_FALSE(model.rows()[0].frozen);
  EXPECT_TRUE(model.rows()[0].black);

  // The feed stops delivering pictures while its receiver keeps reporting: NO SIGNAL after 1 s
  // (no_signal_after_s), not before.
  const FakeFeed stopped = feeds[0];
  const auto hold = [&](double seconds) {
    for (double end = t + seconds; t < end - 1e-9;) {
      t += 0.1;
      feeds[0] = stopped;
      feeds[1].advance(0.1);
      std::vector<PanelInput> inputs{input_of(Role::recv, t, feeds, t)};
      model.update(inputs, t);
    }
  };
  hold(0.8);
  EXPECT_FALSE(model.rows()[0].no_signal) << "0.8 s without a picture";
  hold(0.3);
  EXPECT_TRUE(model.rows()[0].no_signal) << "1.1 s without a picture";
  // Pictures again: the slate goes at the next update.
  run(model, feeds, t, 0.1);
  EXPECT_FALSE(model.rows()[0].no_signal);
  // A feed that is not running has no signal at once.
  feeds[0].state = StreamState::waiting;
  run(model, feeds, t, 0.1);
  EXPECT_TRUE(model.rows()[0].no_signal);
}

TEST(PanelModel, ADecodedFeedsSoundLevelsAlarmAndLipSyncComeThrough) {
  PanelModel model;
  std::vector<FakeFeed> feeds(2);
  feeds[0].decoded = feeds[1].decoded = true;
  feeds[0].audio_channels = 3;
  feeds[0].sound.pairs = {PairLevels{-10, -20, -6}, PairLevels{-60.5, -70, -50}};
  feeds[0].av_offset_ms = 12.46;
  double t = 0;
  run(model, feeds, t, 1);
  ASSERT_EQ(model.rows().size(), 2u);
  const FeedRow& row = model.rows()[0];
  EXPECT_EQ(row.audio_channels, 3);
  EXPECT_EQ(row.sound, feeds[0].sound);
  EXPECT_EQ(format_av_offset(row), "A/V +12.5 ms");
  EXPECT_EQ(format_sound_levels(row),
            "1-2: peak -10.0, RMS -20.0, hold -6.0 dBFS\n"
            "3: peak -60.5, RMS -70.0, hold -50.0 dBFS");
  EXPECT_EQ(model.rows()[1].audio_channels, 0) << "video only";
  EXPECT_EQ(format_av_offset(model.rows()[1]), "") << "never measured";

  feeds[0].sound.silent = true;
  feeds[0].av_offset_ms = -3.0;
  run(model, feeds, t, 0.1);
  EXPECT_TRUE(model.rows()[0].sound.silent);
  EXPECT_EQ(format_av_offset(model.rows()[0]), "A/V -3.0 ms");
  EXPECT_NE(format_sound_levels(model.rows()[0]).find("\nSILENT"), std::string::npos);
}

TEST(PanelModel, NoSignalIsJudgedOnTheReceiversClockNotThePollRate) {
  // A monitor polling every 2.5 s: the decoded count moves between every two polls, so the
  // feed has a signal throughout, though the panel sees it move only once per 2.5 s.
  PanelModel model;
  std::vector<FakeFeed> feeds(1);
  feeds[0].decoded = true;
  double t = 0;
  for (int poll = 0; poll < 6; ++poll) {
    t += 2.5;
    feeds[0].advance(2.5);
    std::vector<PanelInput> inputs{input_of(Role::recv, t, feeds, t)};
    for (double now = t; now < t + 2.5 - 1e-9; now += 0.1) {  // the panel's 10 Hz between polls
      model.update(inputs, now);
      ASSERT_FALSE(model.rows()[0].no_signal) << "poll " << poll << ", panel time " << now;
    }
  }
  // The next poll shows the count unchanged 2.5 s later on the receiver's clock: NO SIGNAL.
  t += 2.5;
  std::vector<PanelInput> inputs{input_of(Role::recv, t, feeds, t)};
  model.update(inputs, t);
  EXPECT_TRUE(model.rows()[0].no_signal);
}

TEST(PanelModel, AReceiverThatStopsAnsweringHasNoSignal) {
  // Its last snapshot stays (clock and counts frozen with it): NO SIGNAL once it is stale
  // (stale_after_s), not its last picture forever.
  PanelModel model;
  std::vector<FakeFeed> feeds(1);
  feeds[0].decoded = true;
  double t = 0;
  run(model, feeds, t, 2);
  ASSERT_FALSE(model.rows()[0].no_signal);
  const double last_answer = t;
  const std::vector<PanelInput> last{input_of(Role::recv, last_answer, feeds, last_answer)};
  for (double now = t; now < last_answer + 2.9; now += 0.1) {
    model.update(last, now);
    ASSERT_FALSE(model.rows()[0].no_signal) << now - last_answer << " s after its last answer";
  }
  model.update(last, last_answer + 3.2);
  EXPECT_TRUE(model.rows()[0].no_signal);
}

TEST(PanelModel, InMonitorAPictureComesFromTheHostThatReceivesTheFeed) {
  PanelModel model;
  std::vector<FakeFeed> sent(1);
  std::vector<FakeFeed> received(1);
  received[0].decoded = true;
  PanelInput send = input_of(Role::send, 1, sent, 1, "198.18.1.3:9000");
  send.polled_from = "198.18.0.2:9100";
  PanelInput recv = input_of(Role::recv, 1, received, 1, "198.18.1.3:9000");
  recv.polled_from = "198.18.1.3:9100";
  std::vector<PanelInput> inputs{send, recv};
  model.update(inputs, 1);
  ASSERT_EQ(model.rows().size(), 1u);
  EXPECT_TRUE(model.rows()[0].has_picture);
  EXPECT_EQ(model.rows()[0].picture_from, "198.18.1.3:9100");
}

TEST(PanelModel, PairsSenderAndReceiverByStreamAndReceivingEnd) {
  PanelModel model;
  std::vector<FakeFeed> feeds(2);
  std::vector<FakeFeed> other(1);
  double t = 0;
  for (int i = 0; i < 30; ++i) {
    t += 0.1;
    for (auto& f : feeds) f.advance(0.1);
    other[0].advance(0.1);
    std::vector<PanelInput> inputs{
        input_of(Role::send, t, feeds, t, "portland:9000"),
        input_of(Role::recv, t, feeds, t, "portland:9000"),
        input_of(Role::send, t, other, t, "portland:9100"),  // another receiver's feed 0
    };
    model.update(inputs, t);
  }
  ASSERT_EQ(model.rows().size(), 3u);
  const auto& rows = model.rows();
  EXPECT_EQ(rows[0].key, "0@portland:9000");
  EXPECT_TRUE(rows[0].has_send && rows[0].has_recv);
  EXPECT_EQ(rows[0].hosts, "seattle \u2192 portland");
  EXPECT_EQ(rows[0].label, "portland #0");  // two feeds 0 (ports 9000 and 9100) on portland
  EXPECT_EQ(rows[1].key, "0@portland:9100");
  EXPECT_TRUE(rows[1].has_send && !rows[1].has_recv);
  EXPECT_EQ(rows[1].hosts, "seattle \u2192 portland");
  EXPECT_EQ(rows[2].key, "1@portland:9000");
  EXPECT_TRUE(rows[2].has_send && rows[2].has_recv);
  EXPECT_EQ(rows[2].label, "#1");
}

// The SC99 layout as `hdstream monitor` sees it: receivers on different hosts, each with its
// own stream 0, all reporting the same hostname (one namespace); their senders likewise.
TEST(PanelModel, TwoHostsWithEqualStreamIdsAreTwoRowsNamedByAddress) {
  PanelModel model;
  std::vector<FakeFeed> first(1), second(1);
  second[0].drop_fraction = 0.10;
  double t = 0;
  auto polled = [&](Role role, std::vector<FakeFeed>& feeds, std::string endpoint,
                    std::string address) {
    PanelInput input = input_of(role, t, feeds, t, std::move(endpoint));
    input.source.host = "vm";
    input.polled_from = std::move(address);
    return input;
  };
  for (int i = 0; i < 50; ++i) {
    t += 0.1;
    first[0].advance(0.1);
    second[0].advance(0.1);
    std::vector<PanelInput> inputs{
        polled(Role::recv, first, "0.0.0.0:9000", "198.18.1.1:9100"),
        polled(Role::recv, second, "198.18.1.2:9000", "198.18.1.2:9100"),
        polled(Role::send, first, "198.18.1.1:9000", "198.18.0.1:9100"),
        polled(Role::send, second, "198.18.1.2:9000", "198.18.0.2:9100"),
    };
    model.update(inputs, t);
  }
  ASSERT_EQ(model.rows().size(), 2u);
  const FeedRow& a = model.rows()[0];
  const FeedRow& b = model.rows()[1];
  EXPECT_EQ(a.key, "0@198.18.1.1:9000");
  EXPECT_EQ(b.key, "0@198.18.1.2:9000");
  EXPECT_EQ(a.destination, "198.18.1.1:9000");  // the wildcard listen, named by the polled host
  EXPECT_EQ(a.hosts, "198.18.0.1 \u2192 198.18.1.1");
  EXPECT_EQ(b.hosts, "198.18.0.2 \u2192 198.18.1.2");
  EXPECT_EQ(a.label, "198.18.1.1 #0");
  EXPECT_EQ(b.label, "198.18.1.2 #0");
  EXPECT_TRUE(a.has_send && a.has_recv && b.has_send && b.has_recv);
  // Each row carries its own host's figures: only the second drops.
  EXPECT_EQ(a.drops, 0u);
  EXPECT_GT(b.drops, 0u);
  EXPECT_EQ(a.health, Health::good);
  EXPECT_EQ(b.health, Health::bad);
  EXPECT_EQ(model.aggregate().feeds, 2u);
  EXPECT_NEAR(model.aggregate().mbps, 2 * 270.0, 2 * 2.0);
  EXPECT_NEAR(model.aggregate().mbps, a.mbps + b.mbps, 1e-9);
  EXPECT_EQ(model.aggregate().drops, b.drops);
  ASSERT_FALSE(model.history().empty());
  EXPECT_EQ(model.history().back().feed_mbps.size(), 2u);
}

TEST(PanelModel, SenderOnlyRowsShowTheFarEnd) {
  PanelModel model;
  std::vector<FakeFeed> feeds(1);
  double t = 0;
  for (int i = 0; i < 30; ++i) {
    t += 0.1;
    feeds[0].advance(0.1);
    auto input = input_of(Role::send, t, feeds, t);
    auto& far = input.source.snapshot.streams[0].far_end;
    far.valid = true;
    far.frames = 80;
    far.drops = 5;
    far.jitter_ms = 2.5;
    far.fps = 29.9;
    far.latency_ms = 4.0;
    std::vector<PanelInput> inputs{input};
    model.update(inputs, t);
  }
  const FeedRow& row = model.rows()[0];
  EXPECT_TRUE(row.far_end);
  EXPECT_EQ(row.drops, 5u);
  EXPECT_EQ(row.frames, 80u);
  EXPECT_DOUBLE_EQ(row.jitter_ms, 2.5);
  EXPECT_DOUBLE_EQ(row.fps, 29.9);
  EXPECT_DOUBLE_EQ(row.latency_ms, 4.0);
}

// A protected feed (two paths, each carrying the whole feed) as its receiver reports it: leg B
// can go down while leg A carries on, so the feed loses nothing.
struct ProtectedFeed {
  FakeFeed feed;
  std::array<StreamState, 2> leg_state{StreamState::running, StreamState::running};
  std::array<double, 2> leg_bytes{};
  std::uint64_t protected_frames = 0;

  void advance(double dt_s) {
    if (legs_up() == 0) return;  // no path: nothing arrives
    feed.advance(dt_s);
    for (std::size_t i = 0; i < 2; ++i) {
      if (leg_state[i] == StreamState::running) leg_bytes[i] += kRateBps / 8.0 * dt_s;
    }
  }
  std::uint32_t legs_up() const {
    return static_cast<std::uint32_t>(std::ranges::count(leg_state, StreamState::running));
  }
  StreamSnapshot snapshot(std::uint16_t id, double rtt_b_ms = 35.25) const {
    StreamSnapshot s = stream_of(id, feed);
    s.protection.present = true;
    s.protection.protected_frames = protected_frames;
    s.protection.legs_up = legs_up();
    s.protection.skew_ms = 40.0;
    for (std::uint8_t i = 0; i < 2; ++i) {
      LegSnapshot leg;
      leg.leg = i;
      leg.state = leg_state[i];
      leg.bytes = static_cast<std::uint64_t>(leg_bytes[i]);
      leg.frames = s.frames;
      leg.rtt_ms = i == 0 ? 20.5 : rtt_b_ms;
      leg.retransmits = i;
      leg.only_frames = i == 0 ? protected_frames : 0;
      s.protection.legs.push_back(leg);
    }
    return s;
  }
};

// 10 Hz updates of a receiver carrying a plain feed (0) and a protected one (1).
void run_protected(PanelModel& model, FakeFeed& plain, ProtectedFeed& feed, double& t,
                   double seconds) {
  for (double end = t + seconds; t < end - 1e-9;) {
    t += 0.1;
    plain.advance(0.1);
    feed.advance(0.1);
    std::vector<FakeFeed> plain_only{plain};
    PanelInput input = input_of(Role::recv, t, plain_only, t);
    input.source.snapshot.streams.push_back(feed.snapshot(1));
    model.update(std::span(&input, 1), t);
  }
}

TEST(PanelModel, AProtectedFeedOnOneLegIsAmberAndNamesTheLegThatIsDown) {
  PanelThresholds thresholds;
  PanelModel model(thresholds);
  FakeFeed plain;
  ProtectedFeed feed;
  double t = 0;
  run_protected(model, plain, feed, t, 5);
  ASSERT_EQ(model.rows().size(), 2u);
  const FeedRow* row = &model.rows()[1];
  EXPECT_FALSE(model.rows()[0].is_protected);
  EXPECT_TRUE(model.rows()[0].legs.empty());
  EXPECT_EQ(format_legs(model.rows()[0]), "");
  EXPECT_EQ(format_protection(model.rows()[0]), "");
  ASSERT_TRUE(row->is_protected);
  EXPECT_EQ(row->legs_up, 2u);
  EXPECT_EQ(row->health, Health::good) << row->health_reason;
  ASSERT_EQ(row->legs.size(), 2u);
  EXPECT_TRUE(row->legs[0].up && row->legs[1].up);
  EXPECT_NEAR(row->legs[0].mbps, 270.0, 2.0);  // each leg carries the whole feed
  EXPECT_NEAR(row->legs[1].mbps, 270.0, 2.0);
  EXPECT_EQ(format_legs(*row), "A \u25cf B \u25cf");

  // Path B is lost. Leg A carries every frame (no drops, full rate), but one more fault would
  // cost frames: amber at once, saying which leg.
  feed.leg_state[1] = StreamState::waiting;
  feed.protected_frames = 12;
  run_protected(model, plain, feed, t, 0.1);
  row = &model.rows()[1];
  EXPECT_EQ(row->health, Health::warn);
  EXPECT_EQ(row->health_reason, "one leg down (leg B)");
  EXPECT_EQ(row->legs_up, 1u);
  EXPECT_TRUE(row->legs[0].up);
  EXPECT_FALSE(row->legs[1].up);
  EXPECT_EQ(row->legs[1].state, StreamState::waiting);
  EXPECT_EQ(row->protected_frames, 12u);
  EXPECT_EQ(row->legs[0].only_frames, 12u);
  EXPECT_EQ(format_legs(*row), "A \u25cf B \u25cb");
  EXPECT_EQ(format_protection(*row), "12 protected \u00b7 skew 40.0 ms");
  EXPECT_EQ(model.rows()[0].health, Health::good) << "the plain feed is not concerned";
  EXPECT_EQ(model.aggregate().healthy, 1u);
  EXPECT_EQ(model.aggregate().health, Health::warn);
  // It stays amber for as long as it runs on one leg; leg B's rate falls to nothing.
  run_protected(model, plain, feed, t, 3);
  row = &model.rows()[1];
  EXPECT_EQ(row->health, Health::warn);
  EXPECT_NEAR(row->mbps, 270.0, 2.0);
  EXPECT_NEAR(row->legs[0].mbps, 270.0, 2.0);
  EXPECT_EQ(row->legs[1].mbps, 0.0);
  EXPECT_EQ(format_leg(row->legs[1]),
            "leg B: waiting, 0.0 Mbps, RTT 35.25 ms, 0 drops, 1 retx, 0 only on this leg");

  // Leg B is back: green again, after the usual recover_s (no flicker on a flapping path).
  feed.leg_state[1] = StreamState::running;
  run_protected(model, plain, feed, t, thresholds.recover_s - 0.5);
  EXPECT_EQ(model.rows()[1].health, Health::warn);
  run_protected(model, plain, feed, t, 1.0);
  EXPECT_EQ(model.rows()[1].health, Health::good);
  EXPECT_EQ(model.rows()[1].legs_up, 2u);
}

TEST(PanelModel, DropsOnTopOfALostLegAreJudgedAsAnyFeedsAre) {
  PanelModel model;
  FakeFeed plain;
  ProtectedFeed feed;
  double t = 0;
  run_protected(model, plain, feed, t, 5);
  ASSERT_EQ(model.rows()[1].health, Health::good);
  // Frames lost on top of a lost leg: the drops decide, red above 5%.
  feed.leg_state[0] = StreamState::waiting;
  feed.feed.drop_fraction = 0.10;
  run_protected(model, plain, feed, t, 3);
  EXPECT_EQ(model.rows()[1].health, Health::bad);
  EXPECT_NE(model.rows()[1].health_reason.find("drops"), std::string::npos)
      << model.rows()[1].health_reason;
}

TEST(PanelModel, BothLegsDownIsAmberUntilTheFeedGoesStale) {
  PanelModel model;
  FakeFeed plain;
  ProtectedFeed feed;
  double t = 0;
  run_protected(model, plain, feed, t, 5);
  ASSERT_EQ(model.rows()[1].health, Health::good);
  // Both paths lost: nothing arrives, though the receiver holds the feed's stream (running)
  // until its sender is back.
  feed.leg_state = {StreamState::waiting, StreamState::waiting};
  run_protected(model, plain, feed, t, 0.5);
  EXPECT_EQ(model.rows()[1].health, Health::warn);
  EXPECT_EQ(model.rows()[1].health_reason, "both legs down");
  EXPECT_EQ(format_legs(model.rows()[1]), "A \u25cb B \u25cb");
  run_protected(model, plain, feed, t, 3);
  EXPECT_EQ(model.rows()[1].health, Health::stale);
  // A feed that is not running is not judged on its legs: waiting is waiting.
  feed.feed.state = StreamState::waiting;
  run_protected(model, plain, feed, t, 0.1);
  EXPECT_EQ(model.rows()[1].health, Health::unknown);
  EXPECT_EQ(model.rows()[1].health_reason, "waiting for the session");
}

// The sender sees its leg B broken before the receiver does (or the other way round): either
// end's word is enough to turn the row amber, and the figures are the receiver's.
TEST(PanelModel, EitherEndLosingALegIsEnough) {
  PanelModel model;
  ProtectedFeed received;
  ProtectedFeed sent;
  double t = 0;
  auto update = [&](double seconds) {
    for (double end = t + seconds; t < end - 1e-9;) {
      t += 0.1;
      received.advance(0.1);
      sent.advance(0.1);
      std::vector<FakeFeed> none;
      PanelInput recv = input_of(Role::recv, t, none, t);
      recv.source.snapshot.streams.push_back(received.snapshot(0, 35.25));
      PanelInput send = input_of(Role::send, t, none, t);
      send.source.snapshot.streams.push_back(sent.snapshot(0, 99.0));
      std::vector<PanelInput> inputs{send, recv};
      model.update(inputs, t);
    }
  };
  received.protected_frames = 5;
  update(5);
  ASSERT_EQ(model.rows().size(), 1u);
  ASSERT_TRUE(model.rows()[0].has_send && model.rows()[0].has_recv);
  EXPECT_EQ(model.rows()[0].health, Health::good);
  EXPECT_EQ(model.rows()[0].protected_frames, 5u) << "the receiver counts what a leg saved";
  EXPECT_DOUBLE_EQ(model.rows()[0].legs[1].rtt_ms, 35.25) << "the receiver's figures";

  sent.leg_state[1] = StreamState::waiting;
  update(0.1);
  EXPECT_EQ(model.rows()[0].health, Health::warn);
  EXPECT_EQ(model.rows()[0].health_reason, "one leg down (leg B)");
  EXPECT_EQ(model.rows()[0].legs_up, 1u);
  EXPECT_FALSE(model.rows()[0].legs[1].up);
  EXPECT_EQ(model.rows()[0].legs[1].state, StreamState::running) << "as the receiver reports it";

  // Only the sender reports (a monitor that polls it alone): its figures.
  std::vector<FakeFeed> none;
  PanelModel sender_only;
  for (int i = 0; i < 30; ++i) {
    t += 0.1;
    sent.advance(0.1);
    PanelInput send = input_of(Role::send, t, none, t);
    send.source.snapshot.streams.push_back(sent.snapshot(0, 99.0));
    sender_only.update(std::span(&send, 1), t);
  }
  ASSERT_TRUE(sender_only.rows()[0].is_protected);
  EXPECT_DOUBLE_EQ(sender_only.rows()[0].legs[1].rtt_ms, 99.0);
  EXPECT_EQ(sender_only.rows()[0].health_reason, "one leg down (leg B)");
}

TEST(PanelModel, SixteenFeedsAndSixtySecondsOfHistory) {
  PanelModel model;
  std::vector<FakeFeed> feeds(16);
  double t = 0;
  run(model, feeds, t, 90);
  ASSERT_EQ(model.rows().size(), 16u);
  EXPECT_NEAR(model.aggregate().mbps, 16 * 270.0, 16 * 2.0);
  EXPECT_NEAR(model.aggregate().planned_mbps, 16 * 270.0, 1e-6);
  EXPECT_EQ(model.aggregate().healthy, 16u);
  const auto& history = model.history();
  ASSERT_FALSE(history.empty());
  EXPECT_LE(history.back().t - history.front().t, 60.0 + 1e-9);
  EXPECT_GE(history.back().t - history.front().t, 59.0);
  EXPECT_LE(history.size(), 122u);  // 0.5 s resolution: bounded work per repaint
  EXPECT_EQ(history.back().feed_mbps.size(), 16u);
}

}  // namespace
}  // namespace hdstream
