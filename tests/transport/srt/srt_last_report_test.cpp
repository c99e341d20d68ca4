// The end of an srt feed at an SrtReceiver over real libsrt on loopback: the receiver's last
// report is the last packet its way, so a lost one shows no gap and is never re-sent. The
// receiver repeats it, unchanged, until the sender closes; the sender here reads three of them
// without closing, as one whose earlier copies were all lost would, and the session then ends
// on its close (not on the receiver's handshake timeout).
#include <gtest/gtest.h>

#include <array>
#include <span>
#include <vector>

#include "common/provenance.hpp"
#include "protocol/frame.hpp"
#include "protocol/handshake.hpp"
#include "protocol/packetizer.hpp"
#include "stats/registry.hpp"
#include "tests/transport/collector.hpp"
#include "tests/transport/srt/srt_messages.hpp"
#include "transport/srt/srt_link.hpp"
#include "transport/srt/srt_receiver.hpp"

namespace hdstream {
namespace {

using namespace std::chrono_literals;

constexpr std::uint64_t kFrames = 3;

Hello srt_hello() {
  Hello hello;
  hello.feed = FeedDescriptor{Codec::synthetic, 1920, 1080, 30000, 1001, 10'000'000};
  hello.transport = TransportKind::srt;
  hello.chunk_bytes = kSrtChunkBytes;
  hello.latency_budget_ms = 120;
  hello.expected_rtt_us = 1000;
  return hello;
}

bool send_frame(SrtSocket& socket, std::uint64_t seq) {
  Frame frame;
  frame.seq = seq;
  frame.ready_ns = 1'000'000'000 + static_cast<std::int64_t>(seq) * 33'366'667;
  frame.data.assign(5000, static_cast<std::byte>(seq));
  std::vector<EncodedChunk> chunks;
  packetize(frame, kSrtChunkBytes, chunks);
  for (const auto& chunk : chunks) {
    if (!test::send_chunk(socket, chunk)) return false;
  }
  return true;
}

TEST(SrtLastReport, IsRepeatedUnchangedUntilTheSenderCloses) {
  ensure_srt_started();
  StatsRegistry stats{Role::recv, 1, "srt"};
  test::Collector collector;
  ReceiverOptions options;
  options.listen = Endpoint{"127.0.0.1", 0};
  options.streams = 1;
  options.handshake_timeout = 60s;  // far beyond the waits below: only the close ends the session
  auto receiver = std::make_shared<SrtReceiver>(options, stats, collector);
  receiver->start();

  SrtSocket sender = SrtSocket::caller(SrtPlan{.rate_bps = 10'000'000});
  sender.connect(receiver->local_endpoint());
  ASSERT_EQ(test::exchange_hello(sender, 0, srt_hello()),
            (HelloAck{AckStatus::accepted, receiver_identity()}));
  for (std::uint64_t seq = 0; seq < kFrames; ++seq) ASSERT_TRUE(send_frame(sender, seq));
  ASSERT_EQ(sender.send(encode_end(0, End{kFrames})), SrtIo::ok);

  std::vector<std::vector<std::byte>> last_reports;
  std::array<std::byte, 2048> buffer{};
  for (auto deadline = std::chrono::steady_clock::now() + 5s;
       last_reports.size() < 3 && std::chrono::steady_clock::now() < deadline;) {
    std::size_t received = 0;
    const SrtIo io = sender.receive(buffer, received);
    ASSERT_NE(io, SrtIo::closed) << "the receiver closed before the sender";
    const auto message = std::span<const std::byte>(buffer).first(received);
    MessageHeader header;
    if (io == SrtIo::ok && decode_header(message, header) == HeaderError::none &&
        header.type == MessageType::feedback && header.frame_seq == kLastFeedbackMark) {
      last_reports.emplace_back(message.begin(), message.end());
    }
  }
  ASSERT_EQ(last_reports.size(), 3u) << "last reports read within 5 s";
  EXPECT_EQ(last_reports[1], last_reports[0]);
  EXPECT_EQ(last_reports[2], last_reports[0]);
  const auto last =
      decode_feedback(std::span<const std::byte>(last_reports[0]).subspan(kHeaderBytes));
  ASSERT_TRUE(last);
  EXPECT_EQ(last->drops, 0u);  // frames are counted by the consumer (FeedReceiver), not here
  EXPECT_EQ(last->checksum_errors, 0u);

  sender.close();
  ASSERT_TRUE(collector.wait_until([](auto& c) { return c.ended_.count(0) > 0; }))
      << "the session outlived the sender's close";
  receiver->stop();
  std::lock_guard lock(collector.mutex_);
  EXPECT_TRUE(collector.ended_[0]);
  EXPECT_EQ(collector.checksums_[0].size(), kFrames);
}

}  // namespace
}  // namespace hdstream
