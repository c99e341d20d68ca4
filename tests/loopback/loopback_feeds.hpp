// Test fixture: N real synthetic feeds over loopback in this process (real sockets, real
// transports, real pipeline), with helpers that wait on conditions with deadlines.
//   LoopbackFeeds feeds(3, 50'000'000);  feeds.start();           // tcp
//   LoopbackFeeds feeds(2, 50'000'000, 0, TransportKind::mtcp);   // or mtcp, srt
//   ASSERT_TRUE(feeds.wait_until([&] { return feeds.received.read().streams[0].frames > 10; }));
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <stop_token>
#include <thread>
#include <vector>

#include "pipeline/feed_receiver.hpp"
#include "pipeline/feed_sender.hpp"
#include "pipeline/synthetic.hpp"
#include "stats/registry.hpp"
#include "transport/factory.hpp"
#include "transport/feed_request.hpp"
#include "transport/transport.hpp"

namespace hdstream::testing {

// Polls `condition` until true or `timeout`; the deadline makes a hang a failure, not a stall.
inline bool wait_until(const std::function<bool()>& condition,
                       std::chrono::milliseconds timeout = std::chrono::milliseconds(10000)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return condition();
}

class LoopbackFeeds {
 public:
  // frames == 0: until finish().
  LoopbackFeeds(std::size_t streams, std::uint64_t rate_bps, std::uint64_t frames = 0,
                TransportKind transport = TransportKind::tcp)
      : sent(Role::send, streams, std::string(to_string(transport))),
        received(Role::recv, streams, std::string(to_string(transport))),
        consumer_(received, [this] { all_ended_ = true; }),
        guard_(asio::make_work_guard(io_)),
        streams_(streams),
        frames_(frames),
        transport_(transport) {
    feed_.codec = Codec::synthetic;
    feed_.width = 1920;
    feed_.height = 1080;
    feed_.bit_rate_bps = rate_bps;
    ReceiverOptions options;
    options.listen = Endpoint{"127.0.0.1", 0};
    options.streams = streams;
    receiver_ = make_receiver(Wire{transport_}, io_, options, received, consumer_);
  }

  ~LoopbackFeeds() { finish(); }

  asio::io_context& io() { return io_; }
  Endpoint endpoint() const { return receiver_->local_endpoint(); }

  void start() {
    receiver_->start();
    for (int i = 0; i < 2; ++i) threads_.emplace_back([this] { io_.run(); });
    const std::size_t frame_bytes = frame_bytes_for(feed_);
    for (std::size_t i = 0; i < streams_; ++i) {
      FeedRequest request;
      request.transport = transport_;
      request.destination = receiver_->local_endpoint();
      request.stream_id = static_cast<std::uint16_t>(i);
      request.feed = feed_;
      request.connections = 3;
      const SenderOptions options = sender_options(request);
      auto strand = asio::make_strand(io_);
      strands_.push_back(strand);
      senders_.push_back(make_sender(Wire{transport_}, strand, options, sent.stream(i)));
      sources_.push_back(std::make_unique<SyntheticSource>(options.stream_id, frame_bytes));
      plans_.push_back(FeedPlan{feed_, 0, frames_});
    }
    for (std::size_t i = 0; i < streams_; ++i) {
      // On the transport's own strand: its members are not thread safe.
      asio::co_spawn(
          strands_[i],
          run_feed_sender(*senders_[i], *sources_[i], plans_[i], sent.stream(i), stop_.get_token()),
          [this](std::exception_ptr, bool ok) {
            if (ok) ++senders_ok_;
            ++senders_done_;
          });
    }
  }

  bool wait_until(const std::function<bool()>& condition,
                  std::chrono::milliseconds timeout = std::chrono::milliseconds(10000)) {
    return testing::wait_until(condition, timeout);
  }

  // Ends every feed cleanly (END after the current frame) and joins the threads.
  bool finish() {
    if (finished_) return senders_ok_ == streams_;
    finished_ = true;
    stop_.request_stop();
    const bool ended = testing::wait_until([this] { return senders_done_ == senders_.size(); });
    testing::wait_until([this] { return all_ended_.load(); }, std::chrono::milliseconds(3000));
    receiver_->stop();
    guard_.reset();
    if (!ended) io_.stop();
    for (auto& thread : threads_) thread.join();
    threads_.clear();
    return ended && senders_ok_ == streams_;
  }

  StatsRegistry sent;
  StatsRegistry received;

 private:
  FeedReceivers consumer_;
  asio::io_context io_;
  asio::executor_work_guard<asio::io_context::executor_type> guard_;
  std::size_t streams_;
  std::uint64_t frames_;
  TransportKind transport_;
  FeedDescriptor feed_;
  std::shared_ptr<ReceiverTransport> receiver_;
  std::vector<std::shared_ptr<SenderTransport>> senders_;
  std::vector<std::unique_ptr<SyntheticSource>> sources_;
  std::vector<FeedPlan> plans_;
  std::vector<asio::any_io_executor> strands_;
  std::vector<std::jthread> threads_;
  std::stop_source stop_;
  std::atomic<std::size_t> senders_done_{0};
  std::atomic<std::size_t> senders_ok_{0};
  std::atomic<bool> all_ended_{false};
  bool finished_ = false;
};

}  // namespace hdstream::testing
