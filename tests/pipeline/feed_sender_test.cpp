// run_feed_sender + FeedReceivers over a real loopback TcpReceiver: pacing and verification.
#include "pipeline/feed_sender.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <future>
#include <thread>

#include "common/clock.hpp"
#include "pipeline/feed_receiver.hpp"
#include "pipeline/synthetic.hpp"
#include "tests/support/eventually.hpp"
#include "transport/tcp/tcp_receiver.hpp"
#include "transport/tcp/tcp_sender.hpp"

namespace hdstream {
namespace {

using namespace std::chrono_literals;

// Wraps FeedReceivers to also record each frame's sender timestamp.
class TimestampRecorder : public FrameConsumer {
 public:
  TimestampRecorder(StatsRegistry& stats, std::promise<void>& all_ended)
      : feeds_(stats, [&all_ended] { all_ended.set_value(); }) {}
  void session_started(std::uint16_t stream, const Hello& hello) override {
    feeds_.session_started(stream, hello);
  }
  void frame_received(std::uint16_t stream, FramePtr frame) override {
    ready_ns_.push_back(frame->ready_ns);  // one stream: calls are never concurrent
    feeds_.frame_received(stream, std::move(frame));
  }
  void session_ended(std::uint16_t stream, bool clean, std::uint64_t next_seq) override {
    feeds_.session_ended(stream, clean, next_seq);
  }
  std::vector<std::int64_t> ready_ns_;

 private:
  FeedReceivers feeds_;
};

// One synthetic feed from run_feed_sender to a real TcpReceiver on loopback.
class OneFeed : public ::testing::Test {
 protected:
  void start(std::uint64_t rate_bps, std::uint64_t frames,
             std::chrono::nanoseconds phase = std::chrono::nanoseconds{0}) {
    receiver_ = std::make_shared<TcpReceiver>(
        io_, ReceiverOptions{.listen = Endpoint{"127.0.0.1", 0}, .streams = 1}, received_,
        recorder_);
    receiver_->start();
    feed_ = FeedDescriptor{Codec::synthetic, 1920, 1080, 30000, 1001, rate_bps};
    SenderOptions options;
    options.destination = receiver_->local_endpoint();
    options.hello.feed = feed_;
    options.hello.chunk_bytes = 64 * 1024;
    auto strand = asio::make_strand(io_);
    sender_ = std::make_shared<TcpSender>(strand, options, sent_.stream(0));
    source_ = std::make_unique<SyntheticSource>(0, frame_bytes_for(feed_));
    started_ns_ = wall_clock_ns();
    asio::co_spawn(strand,
                   run_feed_sender(*sender_, *source_,
                                   FeedPlan{.feed = feed_, .frames = frames, .phase = phase},
                                   sent_.stream(0), stop_.get_token()),
                   [this](std::exception_ptr, bool ok) { sent_ok_.set_value(ok); });
    worker_ = std::jthread([this] { io_.run(); });
  }

  // A failed assertion must not leave the io thread running into the destructor's join.
  void TearDown() override {
    if (!worker_.joinable()) return;
    stop_.request_stop();
    if (receiver_) receiver_->stop();
    io_.stop();
  }

  // Waits for the receiver to see the feed end; true when the sender closed it cleanly.
  bool finish() {
    EXPECT_EQ(all_ended_.get_future().wait_for(20s), std::future_status::ready);
    const bool ok = sent_ok_.get_future().get();
    receiver_->stop();
    worker_.join();
    return ok;
  }

  asio::io_context io_;
  StatsRegistry received_{Role::recv, 1, "tcp"};
  StatsRegistry sent_{Role::send, 1, "tcp"};
  std::promise<void> all_ended_;
  TimestampRecorder recorder_{received_, all_ended_};
  std::shared_ptr<TcpReceiver> receiver_;
  std::shared_ptr<TcpSender> sender_;
  std::unique_ptr<SyntheticSource> source_;
  FeedDescriptor feed_;
  std::stop_source stop_;
  std::promise<bool> sent_ok_;
  std::int64_t started_ns_ = 0;
  std::jthread worker_;
};

double median_gap_ns(const std::vector<std::int64_t>& stamps) {
  std::vector<std::int64_t> gaps;
  for (std::size_t i = 1; i < stamps.size(); ++i) gaps.push_back(stamps[i] - stamps[i - 1]);
  std::nth_element(gaps.begin(), gaps.begin() + static_cast<std::ptrdiff_t>(gaps.size() / 2),
                   gaps.end());
  return static_cast<double>(gaps[gaps.size() / 2]);
}

TEST_F(OneFeed, PacesFramesAtTheFrameRateAndTheyVerify) {
  start(50'000'000, 30);
  EXPECT_TRUE(finish());

  const auto& stamps = recorder_.ready_ns_;
  ASSERT_EQ(stamps.size(), 30u);
  // Frames leave on an absolute schedule of 1001/30000 s from the open: the median spacing is
  // one frame period, and the last frame leaves no earlier than 29 periods after the start
  // (timers may fire late, never early; measured from the first frame instead, a late first
  // timer shortens the span).
  EXPECT_NEAR(median_gap_ns(stamps), 33'366'667.0, 3'000'000.0);
  EXPECT_GE(stamps.back() - started_ns_, 29 * 33'366'667 - 1'000'000);

  const Snapshot rx = received_.sample();
  EXPECT_EQ(rx.streams[0].frames, 30u);
  EXPECT_EQ(rx.streams[0].drops, 0u);
  EXPECT_EQ(rx.streams[0].checksum_errors, 0u);
  EXPECT_EQ(rx.streams[0].bytes, 30 * frame_bytes_for(feed_));
  EXPECT_EQ(sent_.sample().streams[0].frames, 30u);
}

TEST_F(OneFeed, APhaseDelaysTheWholeScheduleNotTheFrameRate) {
  const auto phase = 3 * 33'366'667ns;  // three frame periods: far above connection set-up
  start(20'000'000, 10, phase);
  EXPECT_TRUE(finish());
  const auto& stamps = recorder_.ready_ns_;
  ASSERT_EQ(stamps.size(), 10u);
  // Timers fire late, never early: the first frame waits the phase out after the open, and the
  // schedule after it keeps the frame rate (a late first timer shortens only its own gap, so
  // the median gap and the last frame's time from the start are what is checked).
  EXPECT_GE(stamps.front() - started_ns_, phase.count());
  EXPECT_NEAR(median_gap_ns(stamps), 33'366'667.0, 3'000'000.0);
  EXPECT_GE(stamps.back() - started_ns_, phase.count() + 9 * 33'366'667 - 1'000'000);
  EXPECT_EQ(received_.sample().streams[0].drops, 0u);
}

TEST(SpreadPhase, FeedsShareTheFramePeriodEvenly) {
  const FeedDescriptor feed{Codec::synthetic, 1920, 1080, 30000, 1001, 270'000'000};
  EXPECT_EQ(spread_phase(feed, 0, 5).count(), 0);
  EXPECT_EQ(spread_phase(feed, 1, 5).count(), 6'673'333);  // 1001/30000 s / 5
  EXPECT_EQ(spread_phase(feed, 4, 5).count(), 26'693'333);
  EXPECT_EQ(spread_phase(feed, 1, 1).count(), 0);
  EXPECT_EQ(spread_phase(feed, 0, 0).count(), 0);  // no feeds, no division by zero
  FeedDescriptor still = feed;
  still.frame_rate_num = 0;
  EXPECT_EQ(spread_phase(still, 3, 5).count(), 0);
}

TEST_F(OneFeed, StopTokenEndsTheFeedWithAnEnd) {
  start(10'000'000, 0);  // endless: stop it once some frames have arrived
  ASSERT_TRUE(test::eventually([&] { return received_.stream(0).frames.load() >= 5; }));
  stop_.request_stop();
  EXPECT_TRUE(finish());
  const auto rx = received_.sample().streams[0];
  EXPECT_EQ(rx.state, StreamState::finished);
  EXPECT_EQ(rx.drops, 0u) << "received " << rx.frames << ", sent "
                          << sent_.sample().streams[0].frames << ", sender drops "
                          << sent_.sample().streams[0].drops;
  EXPECT_EQ(rx.frames, sent_.sample().streams[0].frames);
}

}  // namespace
}  // namespace hdstream
