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

TEST(FeedbackCodec, AcceptsLongerBodiesFromNewerRevisions) {
  auto message = encode_feedback(0, sample_feedback());
  std::vector<std::byte> body(body_of(message).begin(), body_of(message).end());
  body.resize(body.size() + 16, std::byte{0xAB});
  EXPECT_TRUE(decode_feedback(body).has_value());
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

}  // namespace
}  // namespace hdstream
