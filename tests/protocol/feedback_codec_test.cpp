// FEEDBACK extension 1 (docs/PROTOCOL.md#feedback-far-end-health-receiver--sender): loss
// counters and per-frame transit samples after the 56-byte base body.
#include <gtest/gtest.h>

#include <vector>

#include "protocol/byte_order.hpp"
#include "protocol/handshake.hpp"

namespace hdstream {
namespace {

Feedback extended_feedback(std::size_t transits = 3) {
  Feedback f;
  f.report_ns = 1'700'000'000'000'000'000;
  f.bytes = 123'456'789;
  f.frames = 1000;
  f.drops = 7;
  f.checksum_errors = 1;
  f.jitter_us = 1500;
  f.fps_milli = 29'970;
  f.latency_us = 2100;
  f.interval_ms = 100;
  f.extended = true;
  f.late_frames = 2;
  f.loss_events = 3;
  f.longest_loss_run = 4;
  f.duplicate_chunks = 11;
  f.out_of_order_chunks = 13;
  for (std::size_t i = 0; i < transits; ++i) {
    // Across hosts a transit may be negative; the sequence number's low 32 bits wrap.
    f.transits.push_back({static_cast<std::uint32_t>(0xFFFF'FFFEu + i),
                          static_cast<std::int32_t>(i % 2 == 0 ? 1000 + i : -5 - i)});
  }
  return f;
}

std::vector<std::byte> body_of(const Feedback& f) {
  const auto message = encode_feedback(2, f);
  return {message.begin() + kHeaderBytes, message.end()};
}

TEST(FeedbackExtension, RoundTripsCountersAndTransitSamples) {
  const Feedback f = extended_feedback();
  const auto body = body_of(f);
  ASSERT_EQ(body.size(), kFeedbackExtendedBytes + 3 * kFeedbackTransitBytes);
  EXPECT_EQ(body.size(), 124u);  // 100 + 8 x 3, as documented
  const auto decoded = decode_feedback(body);
  ASSERT_TRUE(decoded);
  EXPECT_EQ(*decoded, f);
  EXPECT_TRUE(decoded->extended);
}

// The layout as docs/PROTOCOL.md writes it: big-endian, at the documented offsets.
TEST(FeedbackExtension, FieldsSitAtTheirDocumentedOffsets) {
  const auto body = body_of(extended_feedback(2));
  auto u64 = [&](std::size_t at) { return get_be<std::uint64_t>(std::span(body).subspan(at, 8)); };
  auto u32 = [&](std::size_t at) { return get_be<std::uint32_t>(std::span(body).subspan(at, 4)); };
  auto u16 = [&](std::size_t at) { return get_be<std::uint16_t>(std::span(body).subspan(at, 2)); };
  EXPECT_EQ(u64(24), 7u);   // drops, base body
  EXPECT_EQ(u64(56), 2u);   // late_frames
  EXPECT_EQ(u64(64), 3u);   // loss_events
  EXPECT_EQ(u64(72), 4u);   // longest_loss_run
  EXPECT_EQ(u64(80), 11u);  // duplicate_chunks
  EXPECT_EQ(u64(88), 13u);  // out_of_order_chunks
  EXPECT_EQ(u16(96), 2u);   // transit_count
  EXPECT_EQ(u16(98), 0u);   // reserved
  EXPECT_EQ(u32(100), 0xFFFF'FFFEu);
  EXPECT_EQ(u32(104), 1000u);
  EXPECT_EQ(u32(108), 0xFFFF'FFFFu);
  EXPECT_EQ(u32(112), static_cast<std::uint32_t>(-6));  // two's complement
  EXPECT_EQ(body.size(), 116u);
}

TEST(FeedbackExtension, AFiftySixByteBodyIsAnOlderReceiverNotExtended) {
  Feedback base = extended_feedback();
  base.extended = false;
  const auto body = body_of(base);
  ASSERT_EQ(body.size(), kFeedbackBodyBytes);
  const auto decoded = decode_feedback(body);
  ASSERT_TRUE(decoded);
  EXPECT_FALSE(decoded->extended);
  EXPECT_EQ(decoded->late_frames, 0u);
  EXPECT_EQ(decoded->loss_events, 0u);
  EXPECT_EQ(decoded->longest_loss_run, 0u);
  EXPECT_EQ(decoded->duplicate_chunks, 0u);
  EXPECT_EQ(decoded->out_of_order_chunks, 0u);
  EXPECT_TRUE(decoded->transits.empty());
  EXPECT_EQ(decoded->drops, 7u);
}

TEST(FeedbackExtension, NoSamplesIsAHundredByteBody) {
  const auto body = body_of(extended_feedback(0));
  ASSERT_EQ(body.size(), 100u);
  const auto decoded = decode_feedback(body);
  ASSERT_TRUE(decoded);
  EXPECT_TRUE(decoded->extended);
  EXPECT_TRUE(decoded->transits.empty());
}

TEST(FeedbackExtension, ATruncatedExtensionIsMalformed) {
  const auto body = body_of(extended_feedback(0));
  for (std::size_t size = kFeedbackBodyBytes + 1; size < kFeedbackExtendedBytes; ++size) {
    EXPECT_FALSE(decode_feedback(std::span(body).first(size))) << size << " bytes";
  }
}

TEST(FeedbackExtension, FewerBytesThanTheSamplesNeedIsMalformed) {
  const auto body = body_of(extended_feedback(3));
  for (std::size_t size = kFeedbackExtendedBytes; size < body.size(); ++size) {
    EXPECT_FALSE(decode_feedback(std::span(body).first(size))) << size << " bytes";
  }
  // n claims more samples than the body holds.
  auto inflated = body;
  put_be<std::uint16_t>(std::span(inflated).subspan(96, 2), 200);
  EXPECT_FALSE(decode_feedback(inflated));
}

TEST(FeedbackExtension, MoreThan256SamplesIsMalformedEvenWhenTheBodyHoldsThem) {
  auto body = body_of(extended_feedback(kMaxFeedbackTransits));
  ASSERT_TRUE(decode_feedback(body));
  body.resize(body.size() + kFeedbackTransitBytes);
  put_be<std::uint16_t>(std::span(body).subspan(96, 2), kMaxFeedbackTransits + 1);
  EXPECT_FALSE(decode_feedback(body));
}

TEST(FeedbackExtension, TheEncoderSendsTheNewest256Samples) {
  Feedback f = extended_feedback(300);
  const auto decoded = decode_feedback(body_of(f));
  ASSERT_TRUE(decoded);
  ASSERT_EQ(decoded->transits.size(), kMaxFeedbackTransits);
  EXPECT_EQ(decoded->transits.front(), f.transits[300 - kMaxFeedbackTransits]);
  EXPECT_EQ(decoded->transits.back(), f.transits.back());
}

TEST(FeedbackExtension, ReservedBitsSetAreMalformed) {
  for (std::size_t at : {98u, 99u}) {
    auto body = body_of(extended_feedback());
    body[at] = std::byte{0x01};
    EXPECT_FALSE(decode_feedback(body)) << "byte " << at;
  }
}

TEST(FeedbackExtension, CountersAboveDropsAreMalformed) {
  auto check_rejected = [](auto mutate, const char* what) {
    Feedback f = extended_feedback();
    mutate(f);
    EXPECT_FALSE(decode_feedback(body_of(f))) << what;
  };
  check_rejected([](Feedback& f) { f.late_frames = f.drops + 1; }, "late > drops");
  check_rejected([](Feedback& f) { f.loss_events = f.drops + 1; }, "loss events > drops");
  check_rejected([](Feedback& f) { f.longest_loss_run = f.drops + 1; }, "longest run > drops");
  // Each at drops is fine (7 lost frames, all late, 7 runs of one, or one run of 7).
  Feedback edge = extended_feedback();
  edge.late_frames = edge.loss_events = edge.longest_loss_run = edge.drops;
  EXPECT_TRUE(decode_feedback(body_of(edge)));
  // The base body's own checks still apply to an extended body.
  check_rejected([](Feedback& f) { f.interval_ms = 0; }, "zero interval");
}

TEST(FeedbackExtension, BytesAfterTheSamplesAreANewerRevisionsAndIgnored) {
  const Feedback f = extended_feedback(2);
  auto body = body_of(f);
  body.resize(body.size() + 24, std::byte{0xAB});
  const auto decoded = decode_feedback(body);
  ASSERT_TRUE(decoded);
  EXPECT_EQ(*decoded, f);
}

TEST(FeedbackExtension, GarbageExtensionsNeverCrashAndHonourTheBounds) {
  std::uint64_t state = 7;
  auto body = body_of(extended_feedback(4));
  for (int round = 0; round < 5000; ++round) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    auto mutated = body;
    mutated.resize(kFeedbackBodyBytes + (state >> 33) % (mutated.size() + 40 - kFeedbackBodyBytes),
                   std::byte{0});
    for (std::size_t i = kFeedbackBodyBytes; i < mutated.size(); ++i) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      if ((state >> 60) == 0) mutated[i] = static_cast<std::byte>(state >> 52);
    }
    if (auto decoded = decode_feedback(mutated); decoded && decoded->extended) {
      EXPECT_LE(decoded->transits.size(), kMaxFeedbackTransits);
      EXPECT_GE(mutated.size(),
                kFeedbackExtendedBytes + decoded->transits.size() * kFeedbackTransitBytes);
      EXPECT_LE(decoded->late_frames, decoded->drops);
      EXPECT_LE(decoded->loss_events, decoded->drops);
      EXPECT_LE(decoded->longest_loss_run, decoded->drops);
    }
  }
}

}  // namespace
}  // namespace hdstream
