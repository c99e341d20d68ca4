// Pins the exact bytes of HELLO, HELLO_ACK, END, ACK and FEEDBACK messages, written out by hand
// from docs/PROTOCOL.md (header XXH3s: tests/protocol/known_answers.py); each encoder must write
// them and each decoder must read them, so a change that breaks an older peer fails here.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <vector>

#include "protocol/ack.hpp"
#include "protocol/handshake.hpp"
#include "protocol/wire.hpp"
#include "tests/protocol/known_answer.hpp"

namespace hdstream {
namespace {

// HELLO for stream 2: DNxHD 1920x1080 30000/1001 at 220 Mb/s over mtcp, sub-connection 3 of 4,
// leg B of a protected feed.
constexpr std::uint8_t kHelloMessage[] = {
    // header
    0x48, 0x44, 0x53, 0x54,                          // magic "HDST"
    0x01,                                            // version 1
    0x02,                                            // type HELLO
    0x00, 0x02,                                      // stream_id 2
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // frame_seq
    0x00, 0x00, 0x00, 0x00,                          // frame_bytes
    0x00, 0x00,                                      // chunk_index
    0x00, 0x00,                                      // chunk_count
    0x00, 0x00, 0x00, 0x00,                          // payload_offset
    0x00, 0x00, 0x00, 0x44,                          // payload_bytes 68
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // timestamp_ns
    0x77, 0x43, 0x68, 0xeb, 0x0a, 0x76, 0x44, 0xfb,  // payload_xxh3 of the body
    // body
    0x02,                                            // codec dnxhd
    0x00,                                            // flags
    0x07, 0x80,                                      // width 1920
    0x04, 0x38,                                      // height 1080
    0x00, 0x00, 0x75, 0x30,                          // frame rate numerator 30000
    0x00, 0x00, 0x03, 0xe9,                          // frame rate denominator 1001
    0x00, 0x00, 0x00, 0x00, 0x0d, 0x1c, 0xef, 0x00,  // bit rate 220000000
    0x02,                                            // transport mtcp
    0x04,                                            // connections 4
    0x00, 0x00,                                      // reserved
    0x00, 0x01, 0x00, 0x00,                          // chunk payload 65536
    0x00, 0x00, 0x00, 0x78,                          // latency budget 120 ms
    0x00, 0x01, 0x7a, 0xe8,                          // expected RTT 97000 us
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x30, 0x39,  // first frame 12345
    0x03,                                            // extension 1: sub-connection 3
    0x00,                                            // extension 1: reserved
    0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,  // extension 1: session id
    0x02,                                            // extension 2: legs 2
    0x01,                                            // extension 2: leg 1 (path B)
    0x00, 0x00,                                      // extension 2: reserved
    0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,  // extension 2: feed id
};

Hello pinned_hello() {
  Hello hello;
  hello.feed = FeedDescriptor{Codec::dnxhd, 1920, 1080, 30000, 1001, 220'000'000};
  hello.transport = TransportKind::mtcp;
  hello.connections = 4;
  hello.chunk_bytes = 65536;
  hello.latency_budget_ms = 120;
  hello.expected_rtt_us = 97'000;
  hello.first_frame_seq = 12345;
  hello.subconnection = 3;
  hello.session_id = 0x8877665544332211;
  hello.legs = 2;
  hello.leg = 1;
  hello.feed_id = 0x0123456789abcdef;
  return hello;
}

// Reads a literal message's header and returns its body, checking the header is well formed.
std::vector<std::byte> body_of(std::span<const std::uint8_t> message, MessageType type,
                               std::uint16_t stream_id) {
  const auto bytes = test::bytes_of(message);
  MessageHeader header;
  EXPECT_EQ(decode_header(bytes, header), HeaderError::none);
  EXPECT_EQ(header.type, type);
  EXPECT_EQ(header.stream_id, stream_id);
  EXPECT_EQ(header.payload_bytes, bytes.size() - kHeaderBytes);
  return {bytes.begin() + kHeaderBytes, bytes.end()};
}

TEST(ControlKnownAnswer, HelloIsWrittenAsDocumented) {
  EXPECT_EQ(test::hex(encode_hello(2, pinned_hello())), test::hex(kHelloMessage));
}

TEST(ControlKnownAnswer, DocumentedHelloDecodes) {
  const auto body = body_of(kHelloMessage, MessageType::hello, 2);
  EXPECT_EQ(decode_hello(body), pinned_hello());
}

// A sender from before extension 1 wrote only the 46-byte base: it means sub-connection 0,
// session 0; one from before extension 2 wrote 56 bytes: one leg. A truncated extension is
// refused, whichever byte it stops at.
TEST(ControlKnownAnswer, HellosOfOlderSendersDecode) {
  const auto body = body_of(kHelloMessage, MessageType::hello, 2);
  Hello expected = pinned_hello();
  expected.legs = 1;
  expected.leg = 0;
  expected.feed_id = 0;
  EXPECT_EQ(decode_hello(std::span(body).first(56)), expected);
  expected.subconnection = 0;
  expected.session_id = 0;
  EXPECT_EQ(decode_hello(std::span(body).first(46)), expected);
  for (std::size_t size : {47u, 55u, 57u, 67u}) {
    EXPECT_FALSE(decode_hello(std::span(body).first(size))) << size << " bytes";
  }
}

// HELLO_ACK for stream 2: refused, "stream 2 is busy".
constexpr std::uint8_t kHelloAckMessage[] = {
    // header
    0x48, 0x44, 0x53,
    0x54,  // magic "HDST"
    0x01,  // version 1
    0x03,  // type HELLO_ACK
    0x00,
    0x02,  // stream_id 2
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00,  // frame_seq
    0x00, 0x00, 0x00,
    0x00,  // frame_bytes
    0x00,
    0x00,  // chunk_index
    0x00,
    0x00,  // chunk_count
    0x00, 0x00, 0x00,
    0x00,  // payload_offset
    0x00, 0x00, 0x00,
    0x14,  // payload_bytes 20
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00,  // timestamp_ns
    0x86, 0xfa, 0x1b, 0x5e, 0x05, 0x78, 0x35,
    0x77,  // payload_xxh3 of the body
    // body
    0x03,  // status 3: stream id busy
    0x00,  // reserved
    0x00,
    0x10,  // reason length 16
           // clang-format off
    's', 't', 'r', 'e', 'a', 'm', ' ', '2', ' ', 'i', 's', ' ', 'b', 'u', 's', 'y',  // reason
           // clang-format on
};

TEST(ControlKnownAnswer, HelloAckIsWrittenAndReadAsDocumented) {
  const HelloAck ack{AckStatus::stream_busy, "stream 2 is busy"};
  EXPECT_EQ(test::hex(encode_hello_ack(2, ack)), test::hex(kHelloAckMessage));
  const auto body = body_of(kHelloAckMessage, MessageType::hello_ack, 2);
  EXPECT_EQ(decode_hello_ack(body), ack);
  // A reason length pointing past the body is refused, not read.
  auto longer = body;
  longer[3] = std::byte{0x11};
  EXPECT_FALSE(decode_hello_ack(longer));
}

// END for stream 2: 300 frames sent.
constexpr std::uint8_t kEndMessage[] = {
    // header
    0x48, 0x44, 0x53, 0x54,                          // magic "HDST"
    0x01,                                            // version 1
    0x04,                                            // type END
    0x00, 0x02,                                      // stream_id 2
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // frame_seq
    0x00, 0x00, 0x00, 0x00,                          // frame_bytes
    0x00, 0x00,                                      // chunk_index
    0x00, 0x00,                                      // chunk_count
    0x00, 0x00, 0x00, 0x00,                          // payload_offset
    0x00, 0x00, 0x00, 0x08,                          // payload_bytes 8
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // timestamp_ns
    0x75, 0x22, 0xa7, 0x45, 0x77, 0x5e, 0x24, 0xc9,  // payload_xxh3 of the body
    // body
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x2c,  // frames_sent 300
};

TEST(ControlKnownAnswer, EndIsWrittenAndReadAsDocumented) {
  EXPECT_EQ(test::hex(encode_end(2, End{300})), test::hex(kEndMessage));
  const auto body = body_of(kEndMessage, MessageType::end, 2);
  EXPECT_EQ(decode_end(body), End{300});
  EXPECT_FALSE(decode_end(std::span(body).first(7)));
}

// ACK on stream 5: frames below 0x100000002 settled, 0x1234 chunks read on sub-connection 3.
constexpr std::uint8_t kAckMessage[] = {
    // header
    0x48, 0x44, 0x53, 0x54,                          // magic "HDST"
    0x01,                                            // version 1
    0x06,                                            // type ACK
    0x00, 0x05,                                      // stream_id 5
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // frame_seq
    0x00, 0x00, 0x00, 0x00,                          // frame_bytes
    0x00, 0x00,                                      // chunk_index
    0x00, 0x00,                                      // chunk_count
    0x00, 0x00, 0x00, 0x00,                          // payload_offset
    0x00, 0x00, 0x00, 0x18,                          // payload_bytes 24
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // timestamp_ns
    0xc0, 0xfa, 0xf4, 0xca, 0xa9, 0x0f, 0xc3, 0x8e,  // payload_xxh3 of the body
    // body
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02,  // next_frame_seq
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x12, 0x34,  // chunks_received
    0x03,                                            // sub-connection index 3
    0x00,                                            // reserved
    0x00, 0x00,                                      // reserved
    0x00, 0x00, 0x00, 0x00,                          // reserved
};

TEST(ControlKnownAnswer, AckIsWrittenAndReadAsDocumented) {
  const Ack ack{
      .next_frame_seq = 0x0000000100000002, .chunks_received = 0x1234, .subconnection = 3};
  std::array<std::byte, kAckMessageBytes> message;
  encode_ack(5, ack, message);
  EXPECT_EQ(test::hex(message), test::hex(kAckMessage));
  auto body = body_of(kAckMessage, MessageType::ack, 5);
  EXPECT_EQ(decode_ack(body), ack);
  body[16] = std::byte{kMaxSubconnections};  // no such sub-connection
  EXPECT_FALSE(decode_ack(body));
}

// FEEDBACK on stream 1: 3600 frames, 2 drops, 1 checksum error, 0.318 ms jitter, 29.97 fps and
// a latency of -0.727 ms (a receiver whose clock is behind the sender's).
constexpr std::uint8_t kFeedbackMessage[] = {
    // header
    0x48, 0x44, 0x53, 0x54,                          // magic "HDST"
    0x01,                                            // version 1
    0x05,                                            // type FEEDBACK
    0x00, 0x01,                                      // stream_id 1
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // frame_seq 0: not the last report
    0x00, 0x00, 0x00, 0x00,                          // frame_bytes
    0x00, 0x00,                                      // chunk_index
    0x00, 0x00,                                      // chunk_count
    0x00, 0x00, 0x00, 0x00,                          // payload_offset
    0x00, 0x00, 0x00, 0x38,                          // payload_bytes 56
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // timestamp_ns
    0xb0, 0x8f, 0xe8, 0x97, 0xce, 0x5e, 0xb9, 0x10,  // payload_xxh3 of the body
    // body
    0x17, 0x97, 0x9c, 0xfe, 0x36, 0x2a, 0x00, 0x00,  // report_ns 1700000000000000000
    0x00, 0x00, 0x00, 0x1c, 0xbe, 0x99, 0x1a, 0x14,  // bytes 123456789012
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0e, 0x10,  // frames 3600
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,  // drops 2
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,  // checksum_errors 1
    0x00, 0x00, 0x01, 0x3e,                          // jitter_us 318
    0x00, 0x00, 0x75, 0x12,                          // fps_milli 29970
    0xff, 0xff, 0xfd, 0x29,                          // latency_us -727 (two's complement)
    0x00, 0x00, 0x00, 0x64,                          // interval_ms 100
};

Feedback pinned_feedback() {
  return Feedback{.report_ns = 1'700'000'000'000'000'000,
                  .bytes = 123'456'789'012,
                  .frames = 3600,
                  .drops = 2,
                  .checksum_errors = 1,
                  .jitter_us = 318,
                  .fps_milli = 29970,
                  .latency_us = -727,
                  .interval_ms = 100};
}

TEST(ControlKnownAnswer, FeedbackIsWrittenAndReadAsDocumented) {
  EXPECT_EQ(test::hex(encode_feedback(1, pinned_feedback())), test::hex(kFeedbackMessage));
  auto body = body_of(kFeedbackMessage, MessageType::feedback, 1);
  EXPECT_EQ(decode_feedback(body), pinned_feedback());
  body[52 + 3] = std::byte{0};  // interval_ms 0: out of range
  EXPECT_FALSE(decode_feedback(body));
}

// The session's last report differs only in the header's frame_seq, which is 1.
TEST(ControlKnownAnswer, LastFeedbackIsMarkedByFrameSeqOne) {
  auto expected = test::bytes_of(kFeedbackMessage);
  expected[15] = std::byte{0x01};
  EXPECT_EQ(test::hex(encode_feedback(1, pinned_feedback(), /*last=*/true)), test::hex(expected));
  MessageHeader header;
  ASSERT_EQ(decode_header(expected, header), HeaderError::none);
  EXPECT_EQ(header.frame_seq, kLastFeedbackMark);
}

}  // namespace
}  // namespace hdstream
