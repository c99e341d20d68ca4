#include "stats/summary.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "stats/report_json.hpp"
#include "tests/stats/snapshots.hpp"

namespace hdstream {
namespace {

using test::five_feeds;

TEST(Summary, ASendersVerdictCountsWhatItsReceiverReported) {
  Snapshot snapshot = five_feeds();
  snapshot.role = Role::send;
  EXPECT_TRUE(summarize(snapshot).pass);
  snapshot.streams[2].far_end.valid = true;
  snapshot.streams[2].far_end.drops = 4;
  snapshot.streams[3].far_end.valid = true;
  snapshot.streams[3].far_end.checksum_errors = 2;
  snapshot.streams[4].far_end.drops = 9;  // not valid: no report arrived, nothing to count
  const Summary s = summarize(snapshot);
  EXPECT_FALSE(s.pass);
  EXPECT_EQ(s.reasons, (std::vector<std::string>{"the receiver reported 4 frames dropped",
                                                 "the receiver reported 2 checksum errors"}));
  EXPECT_EQ(s.drops, 0u);  // the summary line's own figures stay the sender's
}

TEST(Summary, FiveCleanFeedsPassAtTheirPlannedRate) {
  const Summary s = summarize(five_feeds());
  EXPECT_TRUE(s.pass) << (s.reasons.empty() ? "" : s.reasons[0]);
  EXPECT_EQ(s.streams, 5u);
  EXPECT_EQ(s.frames, 1500u);
  // 300 frames of 1,126,126 bytes at 29.97 fps is 270.0 Mbps per feed.
  EXPECT_NEAR(s.mbps, 5 * 1'126'125 * 8 * 29.97 / 1e6, 0.5);
  EXPECT_NEAR(s.duration_s, 300 / 29.97, 0.01);
}

TEST(Summary, DropsChecksumErrorsAndDeadStreamsFailWithReasons) {
  Snapshot snapshot = five_feeds();
  snapshot.streams[1].drops = 3;
  snapshot.streams[2].checksum_errors = 1;
  snapshot.streams[3].state = StreamState::waiting;
  snapshot.streams[4].state = StreamState::failed;
  const Summary s = summarize(snapshot);
  EXPECT_FALSE(s.pass);
  EXPECT_EQ(s.reasons, (std::vector<std::string>{"stream 3 never connected", "stream 4 failed",
                                                 "3 frames dropped", "1 checksum errors"}));
  EXPECT_EQ(summary_json(s).at("verdict"), "fail");
  EXPECT_EQ(summary_json(s).at("reasons"), nlohmann::ordered_json(s.reasons));
}

TEST(Summary, ShortfallAgainstThePlannedRateFails) {
  Snapshot snapshot = five_feeds();
  for (auto& s : snapshot.streams) s.bytes /= 2;  // half the planned rate
  const Summary s = summarize(snapshot);
  EXPECT_FALSE(s.pass);
  ASSERT_EQ(s.reasons.size(), 1u);
  EXPECT_NE(s.reasons[0].find("below 95% of the planned 1350.0 Mbps"), std::string::npos)
      << s.reasons[0];
}

}  // namespace
}  // namespace hdstream
