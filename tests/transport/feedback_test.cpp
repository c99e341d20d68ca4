// FEEDBACK encode/decode (protocol/handshake.hpp) and the receiver-side meter.
#include <gtest/gtest.h>

#include <algorithm>

#include "protocol/checksum.hpp"
#include "protocol/handshake.hpp"
#include "transport/feedback.hpp"

namespace hdstream {
namespace {

Feedback sample_feedback() {
  Feedback f;
  f.report_ns = 1'700'000'000'000'000'000;
  f.bytes = 123'456'789;
  f.frames = 1000;
  f.drops = 7;
  f.checksum_errors = 2;
  f.jitter_us = 1500;
  f.fps_milli = 29'970;
  f.latency_us = -250;  // clocks of two hosts may disagree
  f.interval_ms = 100;
  return f;
}

std::span<const std::byte> body_of(const std::vector<std::byte>& message) {
  return std::span<const std::byte>(message).subspan(kHeaderBytes);
}

TEST(FeedbackCodec, RoundTripsWithAValidHeader) {
  const auto message = encode_feedback(3, sample_feedback());
  ASSERT_EQ(message.size(), kHeaderBytes + kFeedbackBodyBytes);
  MessageHeader header;
  ASSERT_EQ(decode_header(message, header), HeaderError::none);
  EXPECT_EQ(header.type, MessageType::feedback);
  EXPECT_EQ(header.stream_id, 3);
  EXPECT_EQ(header.payload_bytes, kFeedbackBodyBytes);
  EXPECT_EQ(header.payload_xxh3, payload_checksum(body_of(message)));
  EXPECT_NE(header.frame_seq, kLastFeedbackMark);
  auto decoded = decode_feedback(body_of(message));
  ASSERT_TRUE(decoded.has_value());
  EXPECT_EQ(*decoded, sample_feedback());
}

TEST(FeedbackCodec, TheLastReportIsMarkedInTheHeaderOnly) {
  const auto periodic = encode_feedback(1, sample_feedback());
  const auto last = encode_feedback(1, sample_feedback(), /*last=*/true);
  MessageHeader header;
  ASSERT_EQ(decode_header(last, header), HeaderError::none);
  EXPECT_EQ(header.frame_seq, kLastFeedbackMark);
  // Same body, same checksum: only the mark differs.
  EXPECT_TRUE(std::equal(body_of(last).begin(), body_of(last).end(), body_of(periodic).begin()));
  EXPECT_EQ(decode_feedback(body_of(last)), sample_feedback());
}

TEST(FeedbackCodec, RejectsEveryTruncation) {
  const auto message = encode_feedback(0, sample_feedback());
  const auto body = body_of(message);
  for (std::size_t size = 0; size < body.size(); ++size) {
    EXPECT_FALSE(decode_feedback(body.first(size)).has_value()) << "size " << size;
  }
}

// Past the 56-byte base body comes extension 1 (100 bytes without samples); a base body with
// some of it is truncated, not a newer revision (tests/protocol/feedback_codec_test.cpp).
TEST(FeedbackCodec, AcceptsLongerBodiesFromNewerRevisions) {
  auto message = encode_feedback(0, sample_feedback());
  std::vector<std::byte> body(body_of(message).begin(), body_of(message).end());
  body.resize(body.size() + 16, std::byte{0xAB});
  EXPECT_FALSE(decode_feedback(body).has_value());
  body.resize(kFeedbackBodyBytes);
  body.resize(kFeedbackExtendedBytes + 16, std::byte{0});  // no samples, 16 bytes unknown
  const auto decoded = decode_feedback(body);
  ASSERT_TRUE(decoded.has_value());
  EXPECT_TRUE(decoded->extended);
}

TEST(FeedbackCodec, RejectsOutOfRangeValues) {
  auto check_rejected = [](auto mutate, const char* what) {
    Feedback f = sample_feedback();
    mutate(f);
    const auto message = encode_feedback(0, f);
    EXPECT_FALSE(decode_feedback(body_of(message)).has_value()) << what;
  };
  check_rejected([](Feedback& f) { f.fps_milli = kMaxFeedbackFpsMilli + 1; }, "fps");
  check_rejected([](Feedback& f) { f.jitter_us = kMaxFeedbackJitterUs + 1; }, "jitter");
  check_rejected([](Feedback& f) { f.interval_ms = 0; }, "zero interval");
  check_rejected([](Feedback& f) { f.interval_ms = kMaxFeedbackIntervalMs + 1; }, "interval");
  check_rejected([](Feedback& f) { f.report_ns = 0; }, "no timestamp");
  check_rejected([](Feedback& f) { f.report_ns = -5; }, "negative timestamp");
  check_rejected(
      [](Feedback& f) {
        f.frames = ~0ull;
        f.drops = 2;
      },
      "frames + drops overflow");
}

TEST(FeedbackCodec, GarbageBodiesNeverCrash) {
  std::vector<std::byte> body(kFeedbackBodyBytes);
  std::uint64_t state = 42;
  for (int round = 0; round < 2000; ++round) {
    for (auto& b : body) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      b = static_cast<std::byte>(state >> 56);
    }
    auto decoded = decode_feedback(body);
    if (decoded) {
      EXPECT_LE(decoded->fps_milli, kMaxFeedbackFpsMilli);
      EXPECT_GT(decoded->interval_ms, 0u);
    }
  }
}

TEST(FeedbackMeter, MeasuresFpsOverAboutOneSecond) {
  StreamCounters counters;
  FeedbackMeter meter;
  std::int64_t now_ns = 1'000'000'000;
  Feedback last;
  // 30 fps: a frame every 33.3 ms; reports every 100 ms for 3 s.
  for (int tick = 0; tick <= 30; ++tick) {
    const std::int64_t t = now_ns + tick * 100'000'000ll;
    const auto frames = static_cast<std::uint64_t>(tick * 3);
    counters.frames.store(frames);
    last = meter.take(counters, t);
  }
  EXPECT_NEAR(last.fps_milli / 1000.0, 30.0, 0.5);
  EXPECT_EQ(last.frames, 90u);
  EXPECT_EQ(last.interval_ms, 100u);
}

TEST(FeedbackMeter, CarriesJitterLatencyAndDrops) {
  StreamCounters counters;
  counters.jitter_ms.store(1.25);
  counters.latency_ms.store(3.5);
  counters.drops.store(4);
  counters.checksum_errors.store(1);
  FeedbackMeter meter;
  const Feedback f = meter.take(counters, 5'000'000'000);
  EXPECT_EQ(f.jitter_us, 1250u);
  EXPECT_EQ(f.latency_us, 3500);
  EXPECT_EQ(f.drops, 4u);
  EXPECT_EQ(f.checksum_errors, 1u);

  StreamCounters sender;
  apply_feedback(f, sender.far_end, 6'000'000'000);
  EXPECT_EQ(sender.far_end.drops.load(), 4u);
  EXPECT_DOUBLE_EQ(sender.far_end.jitter_ms.load(), 1.25);
  EXPECT_DOUBLE_EQ(sender.far_end.latency_ms.load(), 3.5);
  EXPECT_EQ(sender.far_end.received_ns.load(), 6'000'000'000);
  EXPECT_EQ(sender.far_end.reports.load(), 1u);
}

// The receiver's side of extension 1: the stream's loss counters, and the frames delivered
// since the last report, each sent once.
TEST(FeedbackMeter, CarriesTheLossCountersAndDrainsTheTransitSamples) {
  StreamCounters counters;
  counters.drops.store(9);
  counters.late_frames.store(1);
  counters.loss_events.store(2);
  counters.longest_loss_run.store(5);
  counters.duplicate_chunks.store(3);
  counters.out_of_order_chunks.store(4);
  counters.add_transit(0x1'0000'0005, 1'000'000'000, 1'002'500'000);  // 2.5 ms
  counters.add_transit(0x1'0000'0006, 1'033'000'000, 1'032'999'000);  // -1 µs across hosts
  FeedbackMeter meter;
  const Feedback f = meter.take(counters, 5'000'000'000);
  EXPECT_TRUE(f.extended);
  EXPECT_EQ(f.late_frames, 1u);
  EXPECT_EQ(f.loss_events, 2u);
  EXPECT_EQ(f.longest_loss_run, 5u);
  EXPECT_EQ(f.duplicate_chunks, 3u);
  EXPECT_EQ(f.out_of_order_chunks, 4u);
  EXPECT_EQ(f.transits, (std::vector<FeedbackTransit>{{5, 2500}, {6, -1}}));
  EXPECT_TRUE(meter.take(counters, 5'100'000'000).transits.empty());  // sent once

  // Over the wire to the sender, whose far end keeps them until take().
  const auto message = encode_feedback(0, f);
  const auto decoded = decode_feedback(body_of(message));
  ASSERT_TRUE(decoded);
  StreamCounters sender;
  apply_feedback(*decoded, sender.far_end, 6'000'000'000);
  EXPECT_TRUE(sender.far_end.extended.load());
  EXPECT_EQ(sender.far_end.late_frames.load(), 1u);
  EXPECT_EQ(sender.far_end.loss_events.load(), 2u);
  EXPECT_EQ(sender.far_end.longest_loss_run.load(), 5u);
  EXPECT_EQ(sender.far_end.duplicate_chunks.load(), 3u);
  EXPECT_EQ(sender.far_end.out_of_order_chunks.load(), 4u);
  EXPECT_EQ(sender.far_end.transits.take(), (std::vector<TransitSample>{{5, 2500}, {6, -1}}));
}

TEST(FeedbackMeter, SendsTheNewestSamplesThatFitAndHoldsNoMoreThanAReportCarries) {
  StreamCounters counters;
  for (std::uint64_t seq = 0; seq < 300; ++seq) counters.add_transit(seq, 0, 1000);
  FeedbackMeter meter;
  const Feedback f = meter.take(counters, 1'000'000'000, /*max_transits=*/100);
  ASSERT_EQ(f.transits.size(), 100u);
  EXPECT_EQ(f.transits.front().frame_seq, 200u);
  EXPECT_EQ(f.transits.back().frame_seq, 299u);
  // The receiver's buffer itself keeps the newest 256.
  EXPECT_EQ(counters.transits.dropped(), 300u - kMaxFeedbackTransits);
}

TEST(FeedbackMeter, AnOlderReceiversReportLeavesTheSenderNotExtended) {
  Feedback f = sample_feedback();  // extended = false: what a 56-byte body decodes to
  StreamCounters sender;
  apply_feedback(f, sender.far_end, 1);
  EXPECT_FALSE(sender.far_end.extended.load());
  EXPECT_TRUE(sender.far_end.transits.take().empty());
}

}  // namespace
}  // namespace hdstream
