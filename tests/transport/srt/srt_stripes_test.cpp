// SRT stripes without sockets: the port layout, each stripe's planned rate, the least-loaded
// stripe rule, and libsrt's figures of K stripes added up as one connection's.
#include "transport/srt/srt_stripes.hpp"

#include <gtest/gtest.h>

#include <array>
#include <vector>

namespace hdstream {
namespace {

TEST(SrtStripes, StripeZeroIsTheStreamsOwnPortAndTheOthersFollowEveryStreamsPorts) {
  // A receiver on 9000 serving 5 streams: stream 2's stripes on 9002, 9007, 9012.
  EXPECT_EQ(srt_stripe_port(9000, 5, 2, 0), 9002);
  EXPECT_EQ(srt_stripe_port(9000, 5, 2, 1), 9007);
  EXPECT_EQ(srt_stripe_port(9000, 5, 2, 2), 9012);
  // No two stripes of any streams share a port.
  std::vector<std::uint16_t> ports;
  for (std::uint16_t stream = 0; stream < 5; ++stream) {
    for (std::size_t stripe = 0; stripe < 16; ++stripe) {
      ports.push_back(*srt_stripe_port(9000, 5, stream, stripe));
    }
  }
  std::sort(ports.begin(), ports.end());
  EXPECT_EQ(std::adjacent_find(ports.begin(), ports.end()), ports.end());
  EXPECT_FALSE(srt_stripe_port(65530, 5, 4, 1));  // past 65535
}

TEST(SrtStripes, EachStripePlansAShareWithHeadroomNeverMoreThanTheFeed) {
  EXPECT_EQ(srt_stripe_rate_bps(2'650'000'000, 1), 2'650'000'000u);
  EXPECT_EQ(srt_stripe_rate_bps(1'200'000'000, 3), 600'000'000u);
  EXPECT_EQ(srt_stripe_rate_bps(1'000'000'000, 2), 750'000'000u);
}

TEST(SrtStripes, TheNextChunkGoesToTheStripeWithTheLeastInItsSendBuffer) {
  SrtStripeScheduler scheduler(3);
  const std::array<std::uint64_t, 3> buffered{90'000, 10'000, 50'000};
  EXPECT_EQ(scheduler.pick(buffered, 1456), 1u);
  // A stripe whose peer stopped acknowledging is passed over whatever its turn.
  const std::array<std::uint64_t, 3> stalled{0, 8'000'000, 1'000};
  EXPECT_EQ(scheduler.pick(stalled, 1456), 0u);
  // Ties go to the lowest index.
  const std::array<std::uint64_t, 3> even{500, 500, 500};
  EXPECT_EQ(scheduler.pick(even, 1456), 0u);
}

TEST(SrtStripes, StatisticsAddUpAndTheSlowestStripeSetsRttAndBuffer) {
  SrtStats total;
  add_srt_stats(
      total, SrtStats{.rtt_ms = 2, .sent_retransmits = 3, .receive_lost = 1, .send_buffer_ms = 10});
  add_srt_stats(
      total, SrtStats{.rtt_ms = 5, .sent_retransmits = 4, .receive_lost = 2, .send_buffer_ms = 7});
  EXPECT_EQ(total.rtt_ms, 5);
  EXPECT_EQ(total.sent_retransmits, 7u);
  EXPECT_EQ(total.receive_lost, 3u);
  EXPECT_EQ(total.send_buffer_ms, 10);
}

}  // namespace
}  // namespace hdstream
