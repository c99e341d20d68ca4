// The stream id an hdstream SRT caller announces itself with, and everything else a listener
// may be handed in its place (other tools' ids, garbage, hostile values).
#include "transport/srt/srt_stream_id.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace hdstream {
namespace {

using namespace std::chrono_literals;
using namespace std::string_literals;

TEST(SrtStreamId, RoundTrips) {
  const SrtCallerPlan plan{270'000'000, 1500ms, 200ms};
  const std::string id = encode_srt_stream_id(plan);
  EXPECT_EQ(id,
            "#!::m=publish,x-hdstream-rate=270000000,x-hdstream-latency-ms=1500,"
            "x-hdstream-rtt-ms=200");
  EXPECT_LE(id.size(), 512u);  // SRTO_STREAMID's limit
  EXPECT_EQ(decode_srt_stream_id(id), plan);
}

TEST(SrtStreamId, AProbeSaysSoAndAFeedsIdIsUnchanged) {
  const SrtCallerPlan probe{40'000'000, 120ms, 1ms, /*probe=*/true};
  const std::string id = encode_srt_stream_id(probe);
  EXPECT_EQ(id,
            "#!::m=publish,x-hdstream-rate=40000000,x-hdstream-latency-ms=120,"
            "x-hdstream-rtt-ms=1,x-hdstream-probe=1");
  EXPECT_EQ(decode_srt_stream_id(id), probe);
  EXPECT_FALSE(decode_srt_stream_id(encode_srt_stream_id({40'000'000, 120ms, 1ms}))->probe);
  EXPECT_FALSE(decode_srt_stream_id("#!::x-hdstream-rate=5,x-hdstream-latency-ms=1,"
                                    "x-hdstream-rtt-ms=1,x-hdstream-probe=0")
                   ->probe);
}

TEST(SrtStreamId, LegBSaysSoAndLegAsIdIsAFeeds) {
  const SrtCallerPlan leg_b{270'000'000, 800ms, 35ms, /*probe=*/false, /*leg=*/1};
  const std::string id = encode_srt_stream_id(leg_b);
  EXPECT_EQ(id,
            "#!::m=publish,x-hdstream-rate=270000000,x-hdstream-latency-ms=800,"
            "x-hdstream-rtt-ms=35,x-hdstream-leg=1");
  EXPECT_EQ(decode_srt_stream_id(id), leg_b);
  // Leg A (and a feed of one leg) announces no leg: its id is what a feed's always was.
  EXPECT_EQ(encode_srt_stream_id({270'000'000, 800ms, 35ms, false, 0}),
            "#!::m=publish,x-hdstream-rate=270000000,x-hdstream-latency-ms=800,"
            "x-hdstream-rtt-ms=35");
  EXPECT_EQ(decode_srt_stream_id("#!::x-hdstream-rate=5,x-hdstream-latency-ms=1,"
                                 "x-hdstream-rtt-ms=1,x-hdstream-leg=0")
                ->leg,
            0);
  // In any order, beside the probe key.
  EXPECT_EQ(decode_srt_stream_id("#!::x-hdstream-leg=1,x-hdstream-rate=5,x-hdstream-probe=1,"
                                 "x-hdstream-latency-ms=1,x-hdstream-rtt-ms=1"),
            (SrtCallerPlan{5, 1ms, 1ms, true, 1}));
}

TEST(SrtStreamId, KeysInAnyOrderAndUnknownKeysAreFine) {
  EXPECT_EQ(decode_srt_stream_id("#!::x-hdstream-rtt-ms=1,u=studio,x-hdstream-latency-ms=120,"
                                 "x-hdstream-rate=5,x-hdstream-future=7"),
            (SrtCallerPlan{5, 120ms, 1ms}));
}

TEST(SrtStreamId, AnythingElseIsNotTrusted) {
  for (const std::string& id : std::vector<std::string>{
           "",                              // ffmpeg / GStreamer callers send none
           "live/stream1",                  // a plain resource name
           "#!::r=live/stream1,m=request",  // a standard id without our keys
           "#!::x-hdstream-rate=270000000,x-hdstream-latency-ms=120",  // no rtt
           "#!::x-hdstream-rate=0,x-hdstream-latency-ms=120,x-hdstream-rtt-ms=1",
           "#!::x-hdstream-rate=-5,x-hdstream-latency-ms=120,x-hdstream-rtt-ms=1",
           "#!::x-hdstream-rate=+5,x-hdstream-latency-ms=120,x-hdstream-rtt-ms=1",
           "#!::x-hdstream-rate= 5,x-hdstream-latency-ms=120,x-hdstream-rtt-ms=1",
           "#!::x-hdstream-rate=5M,x-hdstream-latency-ms=120,x-hdstream-rtt-ms=1",
           "#!::x-hdstream-rate=0x10,x-hdstream-latency-ms=120,x-hdstream-rtt-ms=1",
           "#!::x-hdstream-rate=,x-hdstream-latency-ms=120,x-hdstream-rtt-ms=1",
           "#!::x-hdstream-rate,x-hdstream-latency-ms=120,x-hdstream-rtt-ms=1",
           "#!::x-hdstream-rate=99999999999999999999999,x-hdstream-latency-ms=1,"
           "x-hdstream-rtt-ms=1",  // overflows uint64
           "#!::x-hdstream-rate=400000000001,x-hdstream-latency-ms=1,x-hdstream-rtt-ms=1",
           "#!::x-hdstream-rate=5,x-hdstream-latency-ms=60001,x-hdstream-rtt-ms=1",
           "#!::x-hdstream-rate=5,x-hdstream-latency-ms=1,x-hdstream-rtt-ms=1,x-hdstream-probe=2",
           "#!::x-hdstream-rate=5,x-hdstream-latency-ms=1,x-hdstream-rtt-ms=1,x-hdstream-probe=",
           "#!::x-hdstream-rate=5,x-hdstream-latency-ms=1,x-hdstream-rtt-ms=1,x-hdstream-probe=1,"
           "x-hdstream-probe=1",  // said twice
           "#!::x-hdstream-rate=5,x-hdstream-latency-ms=120,x-hdstream-rtt-ms=1,"
           "x-hdstream-rate=6",  // said twice
           // A leg beyond the two a protected feed has, said twice, or not a plain decimal.
           "#!::x-hdstream-rate=5,x-hdstream-latency-ms=1,x-hdstream-rtt-ms=1,x-hdstream-leg=2",
           "#!::x-hdstream-rate=5,x-hdstream-latency-ms=1,x-hdstream-rtt-ms=1,x-hdstream-leg=255",
           "#!::x-hdstream-rate=5,x-hdstream-latency-ms=1,x-hdstream-rtt-ms=1,"
           "x-hdstream-leg=18446744073709551617",  // beyond uint64 (wrapped, it would be 1)
           "#!::x-hdstream-rate=5,x-hdstream-latency-ms=1,x-hdstream-rtt-ms=1,x-hdstream-leg=1,"
           "x-hdstream-leg=1",  // said twice
           "#!::x-hdstream-rate=5,x-hdstream-latency-ms=1,x-hdstream-rtt-ms=1,x-hdstream-leg=0,"
           "x-hdstream-leg=1",  // said twice, differently
           "#!::x-hdstream-rate=5,x-hdstream-latency-ms=1,x-hdstream-rtt-ms=1,x-hdstream-leg=",
           "#!::x-hdstream-rate=5,x-hdstream-latency-ms=1,x-hdstream-rtt-ms=1,x-hdstream-leg",
           "#!::x-hdstream-rate=5,x-hdstream-latency-ms=1,x-hdstream-rtt-ms=1,x-hdstream-leg=-1",
           "#!::x-hdstream-rate=5,x-hdstream-latency-ms=1,x-hdstream-rtt-ms=1,x-hdstream-leg=+1",
           "#!::x-hdstream-rate=5,x-hdstream-latency-ms=1,x-hdstream-rtt-ms=1,x-hdstream-leg= 1",
           "#!::x-hdstream-rate=5,x-hdstream-latency-ms=1,x-hdstream-rtt-ms=1,x-hdstream-leg=B",
           "#!::x-hdstream-rate=5,x-hdstream-latency-ms=1,x-hdstream-rtt-ms=1,x-hdstream-leg=0x1",
           "#!::x-hdstream-rate=5,x-hdstream-latency-ms=1,x-hdstream-rtt-ms=1,x-hdstream-leg=1.0",
           "#!:x-hdstream-rate=5,x-hdstream-latency-ms=120,x-hdstream-rtt-ms=1", "#!::,,,",
           "#!::====",
           "#!::x-hdstream-rate=5\0,x-hdstream-latency-ms=1,x-hdstream-rtt-ms=1"s,  // embedded NUL
       }) {
    EXPECT_FALSE(decode_srt_stream_id(id).has_value()) << id;
  }
}

TEST(SrtStreamId, TheLargestAcceptedValuesDecode) {
  EXPECT_EQ(decode_srt_stream_id("#!::x-hdstream-rate=400000000000,x-hdstream-latency-ms=60000,"
                                 "x-hdstream-rtt-ms=60000"),
            (SrtCallerPlan{400'000'000'000, 60'000ms, 60'000ms}));
}

}  // namespace
}  // namespace hdstream
