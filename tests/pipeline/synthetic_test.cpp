#include "pipeline/synthetic.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "pipeline/feed_sender.hpp"

namespace hdstream {
namespace {

TEST(Synthetic, FramesVerifyEndToEnd) {
  SyntheticSource source(3, 1'126'125);
  for (std::uint64_t seq = 0; seq < 5; ++seq) {
    auto frame = source.next_frame(seq);
    EXPECT_EQ(frame->data.size(), 1'126'125u);
    EXPECT_EQ(frame->stream_id, 3);
    EXPECT_TRUE(verify_synthetic(*frame)) << seq;
  }
}

TEST(Synthetic, EveryFrameIsUnique) {
  SyntheticSource a(0, 4096), b(1, 4096);
  auto f0 = a.next_frame(0);
  auto f1 = a.next_frame(1);
  auto g0 = b.next_frame(0);
  EXPECT_NE(f0->data, f1->data);
  EXPECT_NE(f0->data, g0->data);
  // ...and deterministic, so a test can regenerate what was sent.
  auto again = a.next_frame(1);
  EXPECT_EQ(again->data, f1->data);
}

// The content of every byte is the chunk checksums' to verify (Reassembler tests, and
// Corruption.FlippedByteIsCountedAsAChecksumErrorAndADrop end to end); what this check must catch
// is a frame that is not this frame: another label, another size, a chunk out of place or from
// another frame, down to the smallest chunk a sender cuts.
TEST(Synthetic, AMislabelledResizedOrMisplacedFrameFailsVerification) {
  SyntheticSource source(2, 20'000);
  auto frame = source.next_frame(7);
  const std::size_t spacing = kSyntheticCanarySpacing;
  const std::size_t last = frame->data.size() - 1;
  // The stamp (magic, stream, seq, size), canaries, and the one in the last 8 bytes.
  for (std::size_t at : {0ul, 5ul, 9ul, 20ul, 24ul, 24 + spacing + 3, 24 + 4 * spacing + 7, last}) {
    frame->data[at] ^= std::byte{0x10};
    EXPECT_FALSE(verify_synthetic(*frame)) << at;
    frame->data[at] ^= std::byte{0x10};
  }
  ASSERT_TRUE(verify_synthetic(*frame));
  frame->seq = 8;  // delivered as the wrong frame
  EXPECT_FALSE(verify_synthetic(*frame));
  frame->seq = 7;
  frame->stream_id = 1;  // delivered on the wrong stream
  EXPECT_FALSE(verify_synthetic(*frame));
  frame->stream_id = 2;

  // Chunks swapped, each holding verified bytes in the wrong place: 1 KiB chunks (the smallest
  // --chunk-size) and SRT's 1408-byte ones, wherever they fall on the canaries.
  for (const std::size_t chunk : {std::size_t{1024}, std::size_t{1408}}) {
    for (std::size_t a = 1; (a + 2) * chunk <= frame->data.size(); a += 3) {
      Frame swapped = *frame;
      const auto first = swapped.data.begin() + static_cast<std::ptrdiff_t>(a * chunk);
      const auto second = swapped.data.begin() + static_cast<std::ptrdiff_t>((a + 1) * chunk);
      std::swap_ranges(first, first + static_cast<std::ptrdiff_t>(chunk), second);
      EXPECT_FALSE(verify_synthetic(swapped)) << chunk << " " << a;
    }
  }
  // A chunk of the same place in another stream's frame of the same number.
  SyntheticSource other(3, 20'000);
  auto foreign = other.next_frame(7);
  Frame mixed = *frame;
  std::copy_n(foreign->data.begin() + 3 * 1408, 1408, mixed.data.begin() + 3 * 1408);
  EXPECT_FALSE(verify_synthetic(mixed));

  Frame longer = *frame;
  longer.data.resize(longer.data.size() + 1);  // a byte more than was stamped
  EXPECT_FALSE(verify_synthetic(longer));
  frame->data.resize(10);  // truncated below the stamp
  EXPECT_FALSE(verify_synthetic(*frame));
}

TEST(Synthetic, APooledBufferKeepsItsBackgroundYetEveryFrameIsUnique) {
  SyntheticSource source(4, 100'000);
  FrameBytes first;
  const std::byte* buffer = nullptr;
  {
    auto frame = source.next_frame(10);
    first = frame->data;
    buffer = frame->data.data();
  }  // back to the pool
  auto again = source.next_frame(11);
  ASSERT_EQ(again->data.data(), buffer);  // the same buffer, restamped
  EXPECT_TRUE(verify_synthetic(*again));
  // Only the canaries (one per KiB, one at the end) and the stamp changed.
  std::size_t changed = 0;
  for (std::size_t i = 0; i < first.size(); ++i) changed += first[i] != again->data[i];
  EXPECT_GT(changed, 0u);
  EXPECT_LE(changed, kSyntheticHeaderBytes + 8 * (100'000 / kSyntheticCanarySpacing + 2));
  // Stale bytes anywhere fail verification: a canary spacing (1 KiB) of frame 10 left in 11.
  for (std::size_t at :
       {kSyntheticHeaderBytes, std::size_t{50'000}, first.size() - kSyntheticCanarySpacing}) {
    auto stale = again->data;
    std::copy_n(first.begin() + static_cast<std::ptrdiff_t>(at), kSyntheticCanarySpacing,
                stale.begin() + static_cast<std::ptrdiff_t>(at));
    const Frame check{.stream_id = 4, .seq = 11, .data = stale};
    EXPECT_FALSE(verify_synthetic(check)) << at;
  }
  // A restamp over the background makes a valid frame of another sequence number.
  Frame restamped{.stream_id = 4, .seq = 12, .data = again->data};
  restamp_synthetic(restamped);
  EXPECT_TRUE(verify_synthetic(restamped));
}

TEST(FrameSize, MatchesTheFeedRate) {
  FeedDescriptor feed{Codec::synthetic, 1920, 1080, 30000, 1001, 270'000'000};
  EXPECT_EQ(frame_bytes_for(feed), 1'126'125u);  // 270e6 / 8 / 29.97
  feed.bit_rate_bps = 220'000'000;
  EXPECT_EQ(frame_bytes_for(feed), 917'583u);
  feed.frame_rate_num = 0;
  EXPECT_EQ(frame_bytes_for(feed), 0u);
}

}  // namespace
}  // namespace hdstream
