// The stream id an hdstream SRT caller announces itself with, and everything else a listener
// may be handed in its place (other tools' ids, garbage, hostile values).
#include "transport/srt_stream_id.hpp"

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
           "#!:x-hdstream-rate=5,x-hdstream-latency-ms=120,x-hdstream-rtt-ms=1",
           "#!::,,,",
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
