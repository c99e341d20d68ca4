// run_feed_sender + FeedReceivers over a real loopback TcpReceiver: pacing and verification.
#include "pipeline/feed_sender.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <future>
#include <thread>

#include "pipeline/feed_receiver.hpp"
#include "pipeline/synthetic.hpp"
#include "transport/tcp_receiver.hpp"
#include "tests/support/eventually.hpp"
#include "transport/tcp_sender.hpp"

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
  void session_ended(std::uint16_t stream, bool clean) override {
    feeds_.session_ended(stream, clean);
  }
  std::vector<std::int64_t> ready_ns_;

 private:
  FeedReceivers feeds_;
};

TEST(FeedSender, PacesFramesAtTheFrameRateAndTheyVerify) {
  asio::io_context io;
  StatsRegistry received(Role::recv, 1, "tcp");
  StatsRegistry sent(Role::send, 1, "tcp");
  std::promise<void> all_ended;
  TimestampRecorder recorder(received, all_ended);
  auto receiver = std::make_shared<TcpReceiver>(
      io, ReceiverOptions{.listen = Endpoint{"127.0.0.1", 0}, .streams = 1}, received, recorder);
  receiver->start();

  const FeedDescriptor feed{Codec::synthetic, 1920, 1080, 30000, 1001, 50'000'000};
  SenderOptions options;
  options.destination = receiver->local_endpoint();
  options.hello.feed = feed;
  options.hello.chunk_bytes = 64 * 1024;
  auto strand = asio::make_strand(io);
  auto sender = std::make_shared<TcpSender>(strand, options, sent.stream(0));
  SyntheticSource source(0, frame_bytes_for(feed));
  const FeedPlan plan{.feed = feed, .first_seq = 0, .frames = 30};
  std::stop_source stop;
  std::promise<bool> sent_ok;
  asio::co_spawn(strand, run_feed_sender(*sender, source, plan, sent.stream(0), stop.get_token()),
                 [&](std::exception_ptr, bool ok) { sent_ok.set_value(ok); });

  std::jthread worker([&io] { io.run(); });
  auto finished = all_ended.get_future();
  ASSERT_EQ(finished.wait_for(20s), std::future_status::ready);
  EXPECT_TRUE(sent_ok.get_future().get());
  receiver->stop();
  worker.join();

  const auto& stamps = recorder.ready_ns_;
  ASSERT_EQ(stamps.size(), 30u);
  // Frames leave on an absolute schedule of 1001/30000 s: the median spacing is one frame
  // period, and 29 periods span the run (timers may fire late, never early).
  std::vector<std::int64_t> gaps;
  for (std::size_t i = 1; i < stamps.size(); ++i) gaps.push_back(stamps[i] - stamps[i - 1]);
  std::nth_element(gaps.begin(), gaps.begin() + gaps.size() / 2, gaps.end());
  EXPECT_NEAR(static_cast<double>(gaps[gaps.size() / 2]), 33'366'667.0, 3'000'000.0);
  EXPECT_GE(stamps.back() - stamps.front(), 29 * 33'366'667 - 1'000'000);

  const Snapshot rx = received.sample();
  EXPECT_EQ(rx.streams[0].frames, 30u);
  EXPECT_EQ(rx.streams[0].drops, 0u);
  EXPECT_EQ(rx.streams[0].checksum_errors, 0u);
  EXPECT_EQ(rx.streams[0].bytes, 30 * frame_bytes_for(feed));
  EXPECT_EQ(sent.sample().streams[0].frames, 30u);
}

TEST(FeedSender, StopTokenEndsTheFeedWithAnEnd) {
  asio::io_context io;
  StatsRegistry received(Role::recv, 1, "tcp");
  StatsRegistry sent(Role::send, 1, "tcp");
  std::promise<void> all_ended;
  TimestampRecorder recorder(received, all_ended);
  auto receiver = std::make_shared<TcpReceiver>(
      io, ReceiverOptions{.listen = Endpoint{"127.0.0.1", 0}, .streams = 1}, received, recorder);
  receiver->start();
  const FeedDescriptor feed{Codec::synthetic, 1920, 1080, 30000, 1001, 10'000'000};
  SenderOptions options;
  options.destination = receiver->local_endpoint();
  options.hello.feed = feed;
  options.hello.chunk_bytes = 64 * 1024;
  auto strand = asio::make_strand(io);
  auto sender = std::make_shared<TcpSender>(strand, options, sent.stream(0));
  SyntheticSource source(0, frame_bytes_for(feed));
  std::stop_source stop;
  std::promise<bool> sent_ok;
  asio::co_spawn(strand,
                 run_feed_sender(*sender, source, FeedPlan{.feed = feed}, sent.stream(0),
                                 stop.get_token()),
                 [&](std::exception_ptr, bool ok) { sent_ok.set_value(ok); });
  std::jthread worker([&io] { io.run(); });

  // Endless feed: stop it once some frames have arrived.
  ASSERT_TRUE(test::eventually([&] { return received.stream(0).frames.load() >= 5; }));
  stop.request_stop();
  ASSERT_EQ(all_ended.get_future().wait_for(10s), std::future_status::ready);
  EXPECT_TRUE(sent_ok.get_future().get());
  receiver->stop();
  worker.join();
  const auto rx = received.sample().streams[0];
  EXPECT_EQ(rx.state, StreamState::finished);
  EXPECT_EQ(rx.drops, 0u) << "received " << rx.frames << ", sent "
                          << sent.sample().streams[0].frames << ", sender drops "
                          << sent.sample().streams[0].drops;
  EXPECT_EQ(rx.frames, sent.sample().streams[0].frames);
}

}  // namespace
}  // namespace hdstream
