// The limits a feed listener puts on connections without a handshake, from the streams it
// serves and the process's descriptor limit (docs/SECURITY.md, "Connections and CPU").
#include "transport/server_handshake.hpp"

#include <gtest/gtest.h>

namespace hdstream {
namespace {

TEST(FeedListenerOptions, HalfTheDescriptorsLeftAfterTheReserveMayWaitForAHandshake) {
  // 1024 descriptors, one stream: 64 for the process and 40 for the stream kept back.
  auto one = feed_listener_options(1, 1024);
  EXPECT_EQ(one.max_pending, (1024u - 64 - 40) / 2);
  EXPECT_EQ(one.max_pending_per_address, 32u);  // 16 sub-connections on each of 2 legs
  // Five streams: a sender of all of them opens 160 at once from its one address.
  auto five = feed_listener_options(5, 1024);
  EXPECT_EQ(five.max_pending, (1024u - 64 - 5 * 40) / 2);
  EXPECT_EQ(five.max_pending_per_address, 160u);
}

TEST(FeedListenerOptions, AFewAlwaysAndNeverMoreThanAThousand) {
  const auto starved = feed_listener_options(5, 100);  // less than the reserve
  EXPECT_EQ(starved.max_pending, 16u);
  EXPECT_EQ(starved.max_pending_per_address, 16u);
  const auto plenty = feed_listener_options(1, 1'048'576);
  EXPECT_EQ(plenty.max_pending, 1024u);
  EXPECT_EQ(plenty.max_pending_per_address, 32u);
  // Whatever the limits, the sessions themselves are not capped here (only pending ones).
  EXPECT_EQ(plenty.max_sessions, TcpListenerOptions{}.max_sessions);
}

}  // namespace
}  // namespace hdstream
