// libsrt's FEC filter between a caller and a listener over real libsrt on loopback: which end's
// --srt-fec is in force (libsrt 1.5 core.cpp checkApplyFilterConfig), the 4 bytes it takes from
// every packet, its packets counted in the stats, and a conflict refused as such.
#include <gtest/gtest.h>

#include <string>

#include "tests/transport/srt/srt_messages.hpp"
#include "transport/srt/srt_fec.hpp"
#include "transport/srt/srt_link.hpp"
#include "transport/srt/srt_socket.hpp"

namespace hdstream {
namespace {

using namespace std::chrono_literals;

SrtPlan plan_with(const char* fec) {
  ensure_srt_started();
  SrtSettings settings;
  if (fec) settings.fec = parse_srt_fec(fec);
  return srt_plan(10'000'000, settings, 1ms);
}

struct Connected {
  SrtSocket listener, caller, accepted;
};

Connected connect_pair(const SrtPlan& listening, const SrtPlan& calling) {
  Connected pair;
  pair.listener = SrtSocket::listener(listening, Endpoint{"127.0.0.1", 0});
  pair.caller = SrtSocket::caller(calling);
  pair.caller.connect(Endpoint{"127.0.0.1", pair.listener.local_port()});
  std::optional<SrtSocket> accepted = pair.listener.accept(5s);
  EXPECT_TRUE(accepted.has_value());
  if (accepted) pair.accepted = std::move(*accepted);
  return pair;
}

TEST(SrtFecSocket, APlanWithFecLeavesTheFiltersHeaderRoomInEveryPacket) {
  EXPECT_EQ(plan_with(nullptr).payload_bytes, kSrtMaxPayloadBytes);
  EXPECT_EQ(plan_with("10,5").payload_bytes, 1452);
  EXPECT_EQ(kSrtFecChunkBytes + kHeaderBytes, 1452u);
  SrtSettings fec;
  fec.fec = parse_srt_fec("10,5");
  EXPECT_EQ(srt_chunk_bytes(fec), kSrtFecChunkBytes);
  EXPECT_EQ(srt_chunk_bytes(SrtSettings{}), kSrtChunkBytes);
}

// A listener that sets no filter takes the caller's: both ends run it.
TEST(SrtFecSocket, AListenerWithoutAFilterTakesTheCallers) {
  Connected pair = connect_pair(plan_with(nullptr), plan_with("10,5,staircase"));
  ASSERT_TRUE(pair.accepted.is_open());
  EXPECT_EQ(parse_srt_fec(pair.accepted.packet_filter()), parse_srt_fec("10,5,staircase"));
  EXPECT_EQ(pair.accepted.payload_bytes(), 1452);
  EXPECT_EQ(pair.caller.payload_bytes(), 1452);
}

// A caller that sets none takes the listener's, and with it 4 bytes less a packet: a sender
// must read payload_bytes() after connecting (SrtSender does).
TEST(SrtFecSocket, ACallerWithoutAFilterTakesTheListenersAndLosesFourBytesAPacket) {
  Connected pair = connect_pair(plan_with("8,4"), plan_with(nullptr));
  ASSERT_TRUE(pair.accepted.is_open());
  EXPECT_EQ(parse_srt_fec(pair.caller.packet_filter()), parse_srt_fec("8,4"));
  EXPECT_EQ(pair.caller.payload_bytes(), 1452);
  const std::string too_big(kSrtMaxPayloadBytes, 'x');
  EXPECT_EQ(pair.caller.send(std::as_bytes(std::span(too_big))), SrtIo::closed);
  const std::string fits(1452, 'y');
  EXPECT_EQ(pair.caller.send(std::as_bytes(std::span(fits))), SrtIo::ok);
  EXPECT_EQ(test::receive_message(pair.accepted), fits);
}

// Keys one end leaves out are taken from the other.
TEST(SrtFecSocket, PartialSpecsOnBothEndsMerge) {
  Connected pair = connect_pair(plan_with("fec,cols:10"), plan_with("fec,cols:10,rows:5"));
  ASSERT_TRUE(pair.accepted.is_open());
  EXPECT_EQ(parse_srt_fec(pair.accepted.packet_filter()).rows, 5);
  EXPECT_EQ(parse_srt_fec(pair.caller.packet_filter()).rows, 5);
}

TEST(SrtFecSocket, ConflictingSpecsAreRefusedAsAFilterConflict) {
  ensure_srt_started();
  SrtSocket listener = SrtSocket::listener(plan_with("8,4"), Endpoint{"127.0.0.1", 0});
  SrtSocket caller = SrtSocket::caller(plan_with("10,5"));
  try {
    caller.connect(Endpoint{"127.0.0.1", listener.local_port()});
    FAIL() << "connected with cols 10 against the listener's cols 8";
  } catch (const SrtError& error) {
    EXPECT_TRUE(error.filter_conflict()) << error.what();
    EXPECT_FALSE(error.wrong_passphrase());
  }
  EXPECT_FALSE(listener.accept(50ms).has_value());
}

// Every message arrives, and the filter's packets show in both ends' stats.
TEST(SrtFecSocket, MessagesArriveAndBothEndsCountTheFecPackets) {
  Connected pair = connect_pair(plan_with(nullptr), plan_with("2,2"));
  ASSERT_TRUE(pair.accepted.is_open());
  constexpr int kMessages = 40;
  for (int i = 0; i < kMessages; ++i) {
    const std::string text = "message " + std::to_string(i) + std::string(1400, '.');
    ASSERT_EQ(pair.caller.send(std::as_bytes(std::span(text))), SrtIo::ok);
  }
  for (int i = 0; i < kMessages; ++i) {
    const auto got = test::receive_message(pair.accepted);
    ASSERT_TRUE(got) << "message " << i;
    EXPECT_EQ(got->substr(0, got->find('.')), "message " + std::to_string(i));
  }
  // 2 x 2: a row packet every 2 data packets and a column packet every 2: by the time the
  // 40th message is here the sender has sent those of the first 38 at least.
  const SrtStats sent = pair.caller.stats();
  const SrtStats received = pair.accepted.stats();
  EXPECT_GE(sent.fec_sent, 30u);
  EXPECT_GE(received.fec_received, 30u);
  EXPECT_LE(received.fec_received, sent.fec_sent);
  EXPECT_EQ(received.fec_recovered, 0u);  // loopback loses nothing
  EXPECT_EQ(received.fec_uncorrectable, 0u);
}

}  // namespace
}  // namespace hdstream
