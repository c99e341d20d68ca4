#include "protocol/handshake.hpp"

#include <gtest/gtest.h>

#include <cstdint>

#include "common/provenance.hpp"
#include "protocol/checksum.hpp"
#include "protocol/feed_limits.hpp"

namespace hdstream {
namespace {

Hello sample_hello() {
  Hello hello;
  hello.feed = FeedDescriptor{Codec::dnxhd, 1920, 1080, 30000, 1001, 220'000'000};
  hello.transport = TransportKind::tcp;
  hello.connections = 1;
  hello.chunk_bytes = 65536;
  hello.latency_budget_ms = 120;
  hello.expected_rtt_us = 97'000;
  hello.first_frame_seq = 12345;
  hello.flags = kHelloProbe;
  return hello;
}

// Splits an encoded message into its checked header and body.
std::span<const std::byte> body_of(const std::vector<std::byte>& message, MessageHeader& header) {
  EXPECT_EQ(decode_header(message, header), HeaderError::none);
  auto body = std::span(message).subspan(kHeaderBytes);
  EXPECT_EQ(body.size(), header.payload_bytes);
  EXPECT_EQ(payload_checksum(body), header.payload_xxh3);
  return body;
}

TEST(Handshake, HelloRoundTrips) {
  const auto message = encode_hello(3, sample_hello());
  MessageHeader header;
  auto body = body_of(message, header);
  EXPECT_EQ(header.type, MessageType::hello);
  EXPECT_EQ(header.stream_id, 3);
  auto hello = decode_hello(body);
  ASSERT_TRUE(hello);
  EXPECT_EQ(*hello, sample_hello());
  EXPECT_EQ(validate_hello(*hello), "");
}

TEST(Handshake, TruncatedHelloIsRejectedAtEveryLength) {
  const auto message = encode_hello(0, sample_hello());
  MessageHeader header;
  auto body = body_of(message, header);
  // 46 and 56 bytes are the bodies of senders without extension 1 or 2: accepted (see below).
  for (std::size_t n = 0; n < body.size(); ++n) {
    if (n != 46 && n != 56) {
      EXPECT_FALSE(decode_hello(body.first(n))) << n;
    }
  }
}

TEST(Handshake, BaseHelloWithoutTheExtensionsStillDecodes) {
  Hello hello = sample_hello();
  hello.subconnection = 2;
  hello.connections = 4;
  hello.session_id = 0x0123456789abcdefULL;
  hello.legs = 2;
  hello.leg = 1;
  hello.feed_id = 77;
  const auto message = encode_hello(0, hello);
  MessageHeader header;
  auto body = body_of(message, header);
  ASSERT_EQ(body.size(), 68u);
  auto full = decode_hello(body);
  ASSERT_TRUE(full);
  EXPECT_EQ(*full, hello);
  auto one_leg = decode_hello(body.first(56));
  ASSERT_TRUE(one_leg);
  EXPECT_EQ(one_leg->legs, 1);
  EXPECT_EQ(one_leg->leg, 0);
  EXPECT_EQ(one_leg->feed_id, 0u);
  EXPECT_EQ(one_leg->session_id, hello.session_id);
  auto base = decode_hello(body.first(46));
  ASSERT_TRUE(base);
  EXPECT_EQ(base->subconnection, 0);
  EXPECT_EQ(base->session_id, 0u);
  EXPECT_EQ(base->connections, 4);
}

TEST(Handshake, SubconnectionOutsideTheConnectionCountIsRefused) {
  Hello hello = sample_hello();
  hello.transport = TransportKind::mtcp;
  hello.connections = 4;
  hello.subconnection = 4;
  EXPECT_NE(validate_hello(hello).find("sub-connection 4 of 4"), std::string::npos);
  hello.subconnection = 3;
  EXPECT_EQ(validate_hello(hello), "");
  hello.connections = kMaxSubconnections + 1;
  EXPECT_NE(validate_hello(hello).find("at most"), std::string::npos);
}

TEST(Handshake, LegsArePlausibleOrRefused) {
  Hello hello = sample_hello();
  hello.legs = 2;
  hello.leg = 1;
  hello.feed_id = 0x5eed;
  EXPECT_EQ(validate_hello(hello), "");
  hello.leg = 2;
  EXPECT_EQ(validate_hello(hello), "leg 2 of 2");
  hello.leg = 0;
  hello.legs = 0;
  EXPECT_EQ(validate_hello(hello), "0 legs (1 or 2)");
  hello.legs = 3;
  EXPECT_EQ(validate_hello(hello), "3 legs (1 or 2)");
  hello.legs = 255;
  EXPECT_EQ(validate_hello(hello), "255 legs (1 or 2)");
  hello.legs = 2;
  hello.feed_id = 0;  // legs the receiver could not tell from another feed's
  EXPECT_EQ(validate_hello(hello), "a protected feed without a feed id");
}

TEST(Handshake, LongerHelloFromANewerRevisionIsAccepted) {
  auto message = encode_hello(0, sample_hello());
  message.resize(message.size() + 8, std::byte{0});  // extension 3: no audio
  message.resize(message.size() + 16, std::byte{0x5a});
  auto hello = decode_hello(std::span(message).subspan(kHeaderBytes));
  ASSERT_TRUE(hello);
  EXPECT_EQ(*hello, sample_hello());
}

TEST(Handshake, ValidationNamesTheProblem) {
  Hello hello = sample_hello();
  hello.feed.codec = static_cast<Codec>(99);
  EXPECT_EQ(validate_hello(hello), "unknown codec 99");
  hello = sample_hello();
  hello.transport = static_cast<TransportKind>(7);
  EXPECT_EQ(validate_hello(hello), "unknown transport 7");
  hello = sample_hello();
  hello.feed.frame_rate_den = 0;
  EXPECT_EQ(validate_hello(hello), "frame rate 30000/0 out of range");
  // A rate of 1 fps, but terms libavformat would take as negative ints.
  hello.feed.frame_rate_num = hello.feed.frame_rate_den = 4'000'000'000u;
  EXPECT_EQ(validate_hello(hello), "frame rate 4000000000/4000000000 out of range");
  hello.feed.frame_rate_num = hello.feed.frame_rate_den = 1'000'001;
  EXPECT_NE(validate_hello(hello), "");
  hello.feed.frame_rate_num = hello.feed.frame_rate_den = 1'000'000;
  EXPECT_EQ(validate_hello(hello), "");
  hello = sample_hello();
  hello.chunk_bytes = 0;
  EXPECT_NE(validate_hello(hello), "");
  hello = sample_hello();
  hello.connections = 0;
  EXPECT_EQ(validate_hello(hello), "zero connections");
}

// Each quantity that sizes something on the receiver: its largest value passes, one more (and
// the type's maximum) is refused with a reason naming it.
TEST(Handshake, ValidationBoundsWhatSizesTheReceiver) {
  struct Case {
    const char* name;
    void (*set)(Hello&, std::uint64_t);
    std::uint64_t largest;
    std::uint64_t type_max;
    const char* reason;
  };
  const Case cases[] = {
      {"latency",
       [](Hello& h, std::uint64_t v) { h.latency_budget_ms = static_cast<std::uint32_t>(v); },
       kMaxLatencyBudgetMs, UINT32_MAX, "latency budget"},
      {"rate", [](Hello& h, std::uint64_t v) { h.feed.bit_rate_bps = v; }, kMaxBitRateBps,
       UINT64_MAX, "bit rate"},
      {"rtt", [](Hello& h, std::uint64_t v) { h.expected_rtt_us = static_cast<std::uint32_t>(v); },
       kMaxExpectedRttUs, UINT32_MAX, "expected RTT"},
      {"width", [](Hello& h, std::uint64_t v) { h.feed.width = static_cast<std::uint16_t>(v); },
       kMaxFrameWidth, UINT16_MAX, "picture size"},
      {"height", [](Hello& h, std::uint64_t v) { h.feed.height = static_cast<std::uint16_t>(v); },
       kMaxFrameHeight, UINT16_MAX, "picture size"},
  };
  for (const Case& c : cases) {
    for (std::uint64_t value : {std::uint64_t{0}, c.largest, c.largest + 1, c.type_max}) {
      Hello hello = sample_hello();  // DNxHD: a picture of 0 is refused too
      c.set(hello, value);
      const std::string reason = validate_hello(hello);
      const bool zero_picture = value == 0 && std::string(c.reason) == "picture size";
      if (value <= c.largest && !zero_picture) {
        EXPECT_EQ(reason, "") << c.name << " = " << value;
      } else {
        EXPECT_NE(reason.find(c.reason), std::string::npos)
            << c.name << " = " << value << ": " << reason;
      }
    }
  }
  // A synthetic feed is not a picture: 0 x 0 is fine.
  Hello synthetic = sample_hello();
  synthetic.feed.codec = Codec::synthetic;
  synthetic.feed.width = synthetic.feed.height = 0;
  EXPECT_EQ(validate_hello(synthetic), "");
}

TEST(Handshake, RawFramesThatCannotFitAreRefused) {
  Hello hello = sample_hello();
  hello.feed.codec = Codec::v210;
  EXPECT_EQ(validate_hello(hello), "");  // 1080 v210: 5.5 MB in 64 KiB chunks
  hello.feed.width = 8192;
  hello.feed.height = 4320;  // 94.6 MB: above the 64 MiB wire limit
  EXPECT_NE(validate_hello(hello).find("v210 8192x4320 frames are 94556160 bytes"),
            std::string::npos)
      << validate_hello(hello);
  hello = sample_hello();
  hello.feed.codec = Codec::uyvy;
  hello.chunk_bytes = 63;  // 65535 chunks of 63 bytes cannot carry 4,147,200
  EXPECT_NE(validate_hello(hello).find("4128705 bytes"), std::string::npos)
      << validate_hello(hello);
  hello.chunk_bytes = 64;
  EXPECT_EQ(validate_hello(hello), "");
}

TEST(Handshake, AckRoundTripsWithReason) {
  const HelloAck ack{AckStatus::stream_busy, "another sender is already connected"};
  const auto message = encode_hello_ack(2, ack);
  MessageHeader header;
  auto decoded = decode_hello_ack(body_of(message, header));
  ASSERT_TRUE(decoded);
  EXPECT_EQ(*decoded, ack);
}

TEST(Handshake, AckReasonIsBounded) {
  const HelloAck ack{AckStatus::bad_request, std::string(5000, 'x')};
  const auto message = encode_hello_ack(0, ack);
  MessageHeader header;
  auto decoded = decode_hello_ack(body_of(message, header));
  ASSERT_TRUE(decoded);
  EXPECT_EQ(decoded->reason.size(), kMaxReasonBytes);
}

TEST(Handshake, AnAcceptingAckNamesTheReceiverAndTheSenderKeepsItPrintable) {
  const HelloAck ack{AckStatus::accepted, receiver_identity()};
  MessageHeader header;
  const auto message = encode_hello_ack(0, ack);
  const auto decoded = decode_hello_ack(body_of(message, header));
  ASSERT_TRUE(decoded);
  EXPECT_EQ(named_receiver(*decoded), receiver_identity());
  EXPECT_EQ(receiver_identity(), host_name() + " (hdstream " + hdstream_version() + ")");

  // A hostile receiver's name: no escape sequences or line breaks reach a log or a report, and
  // no more than 128 bytes of it.
  EXPECT_EQ(named_receiver({AckStatus::accepted, "rx\x1b[2J\nforged line\t\x7f"}),
            "rx?[2J?forged line??");
  EXPECT_EQ(named_receiver({AckStatus::accepted, std::string(kMaxReasonBytes, 'n')}),
            std::string(kMaxReceiverNameBytes, 'n'));
  // Nothing but printable ASCII: an invalid byte, and a two-byte character cut at the limit,
  // would make the JSON report unwritable.
  EXPECT_EQ(named_receiver({AckStatus::accepted, "rx\xff\xc3\xa9"}), "rx???");
  // (append, not +: GCC 12 warns falsely of array bounds in string + literal, PR 105329)
  EXPECT_EQ(named_receiver({AckStatus::accepted,
                            std::string(kMaxReceiverNameBytes - 1, 'n').append("\xc3\xa9")}),
            std::string(kMaxReceiverNameBytes - 1, 'n').append("?"));
  // An older receiver names nothing; a refusal's reason is not a name.
  EXPECT_EQ(named_receiver({AckStatus::accepted, ""}), "");
  EXPECT_EQ(named_receiver({AckStatus::stream_busy, "another sender is already connected"}), "");
}

// What a sender logs of a receiver's refusal (tcp_connect, srt_sender): the receiver may be
// anyone's, so its reason reaches the log as printable ASCII, at most kMaxReasonBytes.
TEST(Handshake, ARefusalsReasonIsLoggedPrintable) {
  EXPECT_EQ(refusal_reason({AckStatus::bad_request, "no\x1b]0;owned\x07\nforged 12:00 line"}),
            "no?]0;owned??forged 12:00 line");
  EXPECT_EQ(refusal_reason({AckStatus::bad_request, std::string(10'000, 'r')}),
            std::string(kMaxReasonBytes, 'r'));
  EXPECT_EQ(refusal_reason({AckStatus::stream_busy, "another sender is already connected"}),
            "another sender is already connected");
}

TEST(Handshake, MalformedAcksAreRejected) {
  auto message = encode_hello_ack(0, HelloAck{AckStatus::accepted, "ok"});
  auto body = std::vector<std::byte>(message.begin() + kHeaderBytes, message.end());
  // Reason length pointing past the end of the body.
  auto lying = body;
  lying[3] = std::byte{200};
  EXPECT_FALSE(decode_hello_ack(lying));
  // Unknown status values.
  auto unknown = body;
  unknown[0] = std::byte{0};
  EXPECT_FALSE(decode_hello_ack(unknown));
  unknown[0] = std::byte{77};
  EXPECT_FALSE(decode_hello_ack(unknown));
  EXPECT_FALSE(decode_hello_ack({}));
}

TEST(Handshake, EndRoundTrips) {
  const auto message = encode_end(1, End{300});
  MessageHeader header;
  auto body = body_of(message, header);
  EXPECT_EQ(header.type, MessageType::end);
  auto end = decode_end(body);
  ASSERT_TRUE(end);
  EXPECT_EQ(end->frames_sent, 300u);
  EXPECT_FALSE(decode_end(body.first(7)));
}

TEST(Handshake, NamesRoundTrip) {
  for (auto codec : {Codec::synthetic, Codec::dnxhd, Codec::v210, Codec::uyvy}) {
    EXPECT_EQ(codec_from_string(to_string(codec)), codec);
  }
  for (auto kind : {TransportKind::tcp, TransportKind::mtcp, TransportKind::srt}) {
    EXPECT_EQ(transport_from_string(to_string(kind)), kind);
  }
  EXPECT_FALSE(codec_from_string("h265"));
  EXPECT_FALSE(transport_from_string("udp"));
}

}  // namespace
}  // namespace hdstream

namespace hdstream {
namespace {

// A feed striped over K SRT connections says transport 4 on the wire: an older receiver, whose
// validate_hello knows transports 1..3, refuses it as "unknown transport 4" instead of taking
// stripe 0 for the whole feed.
TEST(Handshake, AStripedSrtHelloSaysTransportFourWhichOlderReceiversRefuse) {
  Hello hello = sample_hello();
  hello.transport = TransportKind::srt;
  hello.connections = 3;
  hello.subconnection = 1;
  hello.session_id = 42;
  const auto message = encode_hello(0, hello);
  MessageHeader header;
  const auto body = body_of(message, header);
  EXPECT_EQ(body[22], std::byte{kWireSrtStriped});
  EXPECT_EQ(to_string(static_cast<TransportKind>(kWireSrtStriped)), "invalid");
  const auto decoded = decode_hello(body);
  ASSERT_TRUE(decoded);
  EXPECT_EQ(*decoded, hello);
  // One connection is the plain srt HELLO of every version.
  hello.connections = 1;
  hello.subconnection = 0;
  const auto plain = encode_hello(0, hello);
  EXPECT_EQ(body_of(plain, header)[22], std::byte{3});
  // Transport 3 with several connections is no HELLO any sender writes.
  auto forged = std::vector<std::byte>(message.begin() + kHeaderBytes, message.end());
  forged[22] = std::byte{3};
  EXPECT_FALSE(decode_hello(forged));
}

TEST(Handshake, AnAcceptedStripedFeedsAckNamesTheStripePorts) {
  const HelloAck ack{AckStatus::accepted, {}, {9005, 9010}};
  const auto message = encode_hello_ack(0, ack);
  MessageHeader header;
  const auto body = body_of(message, header);
  EXPECT_EQ(body.size(), 4u + 1 + 2 * 2);
  EXPECT_EQ(decode_hello_ack(body), ack);
  // Truncated, zero or too many stripe ports: refused, not guessed.
  auto truncated = std::vector<std::byte>(body.begin(), body.end() - 1);
  EXPECT_FALSE(decode_hello_ack(truncated));
  auto zero = std::vector<std::byte>(body.begin(), body.end());
  zero[4] = std::byte{0};
  EXPECT_FALSE(decode_hello_ack(zero));
  auto many = std::vector<std::byte>(body.begin(), body.end());
  many[4] = std::byte{16};
  EXPECT_FALSE(decode_hello_ack(many));
}

}  // namespace
}  // namespace hdstream

namespace hdstream {
namespace {

Hello hello_with_audio() {
  Hello hello = sample_hello();
  hello.feed.audio = AudioFormat{8, 24, kAudioSampleRate};
  return hello;
}

// A feed with audio sets the codec byte's audio bit and carries extension 3; an older receiver,
// whose validate_hello knows codecs 1..4, refuses it as "unknown codec 130" instead of taking
// each frame's sound for picture.
TEST(HandshakeAudio, AFeedWithAudioSaysSoInTheCodecByteAndExtensionThree) {
  const auto message = encode_hello(1, hello_with_audio());
  MessageHeader header;
  const auto body = body_of(message, header);
  ASSERT_EQ(body.size(), 76u);
  EXPECT_EQ(body[0], std::byte{0x82});
  EXPECT_EQ(to_string(static_cast<Codec>(0x82)), "invalid");
  EXPECT_EQ(body[68], std::byte{8});
  EXPECT_EQ(body[69], std::byte{24});
  const auto decoded = decode_hello(body);
  ASSERT_TRUE(decoded);
  EXPECT_EQ(*decoded, hello_with_audio());
  EXPECT_EQ(validate_hello(*decoded), "");
  // A video-only feed's HELLO is what receivers older than audio read: 68 bytes, codec 2.
  const auto plain = encode_hello(1, sample_hello());
  EXPECT_EQ(body_of(plain, header).size(), 68u);
  EXPECT_EQ(body_of(plain, header)[0], std::byte{2});
}

TEST(HandshakeAudio, ASenderNamesAnOlderReceiversRefusalOfAudio) {
  // What a receiver older than audio answers: its validate_hello sees codec 0x82.
  const HelloAck older{AckStatus::bad_request, "unknown codec 130"};
  EXPECT_EQ(older_receiver_hint(hello_with_audio(), older),
            " (the receiver predates audio: upgrade it, or send a source without sound)");
  EXPECT_EQ(older_receiver_hint(sample_hello(), older), "");
  EXPECT_EQ(older_receiver_hint(hello_with_audio(), {AckStatus::bad_request, "zero connections"}),
            "");
}

TEST(HandshakeAudio, TruncatedOrContradictoryAudioIsMalformed) {
  const auto message = encode_hello(0, hello_with_audio());
  const std::vector<std::byte> body(message.begin() + kHeaderBytes, message.end());
  for (std::size_t n = 69; n < body.size(); ++n) {
    EXPECT_FALSE(decode_hello(std::span(body).first(n))) << n;
  }
  // The audio bit without extension 3 (a 68-byte body), and extension 3 without the bit.
  EXPECT_FALSE(decode_hello(std::span(body).first(68)));
  auto forged = body;
  forged[0] = std::byte{2};
  EXPECT_FALSE(decode_hello(forged));
  // Extension 3 saying "no audio" with the bit clear is a video-only feed.
  forged[68] = std::byte{0};
  const auto decoded = decode_hello(forged);
  ASSERT_TRUE(decoded);
  EXPECT_FALSE(decoded->feed.audio.present());
}

TEST(HandshakeAudio, ValidationBoundsTheSound) {
  Hello hello = hello_with_audio();
  hello.feed.audio.channels = 17;
  EXPECT_EQ(validate_hello(hello),
            "audio 17 channels of 24-bit at 48000 Hz (1..16 channels, 16 or 24-bit, 48000 Hz)");
  hello = hello_with_audio();
  hello.feed.audio.bits = 20;
  EXPECT_NE(validate_hello(hello), "");
  hello = hello_with_audio();
  hello.feed.audio.sample_rate = 44'100;
  EXPECT_NE(validate_hello(hello), "");
  hello = hello_with_audio();
  hello.feed.audio.bits = 16;
  hello.feed.audio.channels = 16;
  EXPECT_EQ(validate_hello(hello), "");
  hello.feed.codec = Codec::synthetic;
  EXPECT_EQ(validate_hello(hello), "synthetic feeds carry no audio");
  // Below 1 fps a frame's sound would exceed the rate's 48,000 samples (at 1 / 2^25 fps it
  // overflowed the trailer's 32-bit count into 0): refused.
  hello = hello_with_audio();
  hello.feed.frame_rate_num = 1;
  hello.feed.frame_rate_den = 2;
  EXPECT_EQ(validate_hello(hello), "audio needs a frame rate of at least 1 fps");
  hello.feed.frame_rate_den = 1;
  EXPECT_EQ(validate_hello(hello), "");
}

TEST(HandshakeAudio, ARawFrameAndItsSoundMustFitTogether) {
  // 1.1 MiB of UYVY in 17 chunks of 64 KiB fits a 17-chunk ceiling alone, not with its sound.
  Hello hello = hello_with_audio();
  hello.feed.codec = Codec::uyvy;
  hello.feed.width = 1024;
  hello.feed.height = 544;  // 1024 x 2 x 544 = 1,114,112 bytes: exactly 17 x 65,536
  hello.chunk_bytes = 65536;
  EXPECT_EQ(validate_hello(hello), "");  // 65,535 chunks: room for the sound
  hello.chunk_bytes = 17;                // 65,535 x 17 = 1,114,095 bytes: not even the picture
  EXPECT_NE(validate_hello(hello), "");
  hello.chunk_bytes = 18;  // 1,179,630: the picture (1,114,112) and its sound (38,464) fit
  EXPECT_EQ(validate_hello(hello), "");
  hello.feed.audio.channels = 16;  // 76,912 bytes of sound: 1,191,024 > 1,179,630
  EXPECT_NE(validate_hello(hello), "");
}

}  // namespace
}  // namespace hdstream
