// Session control messages: HELLO (feed descriptor + transport parameters), HELLO_ACK and END.
//   auto bytes = encode_hello(stream_id, hello);         // header + body, ready to write
//   if (auto hello = decode_hello(body)) accept(*hello);  // body = payload after the header
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/wire.hpp"

namespace hdstream {

enum class Codec : std::uint8_t {
  invalid = 0,
  synthetic = 1,  // self-verifying pseudo-random frames
  dnxhd = 2,      // VC-3 / DNxHD elementary frames
  v210 = 3,       // 4:2:2 10-bit packed, uncompressed
  uyvy = 4,       // 4:2:2 8-bit packed, uncompressed
};

std::string_view to_string(Codec codec);
std::optional<Codec> codec_from_string(std::string_view name);

// Embedded audio, as SDI carries it beside the picture: interleaved little-endian PCM, every
// frame carrying the samples that play during it (protocol/audio_block.hpp). channels 0: a
// video-only feed.
struct AudioFormat {
  std::uint8_t channels = 0;      // 1 .. kMaxAudioChannels; 0 = no audio
  std::uint8_t bits = 0;          // 16 or 24 per sample
  std::uint32_t sample_rate = 0;  // kAudioSampleRate

  bool present() const { return channels > 0; }
  // Bytes of one sample on every channel (one "sample frame").
  std::uint32_t bytes_per_sample() const { return std::uint32_t{channels} * (bits / 8u); }
  bool operator==(const AudioFormat&) const = default;
};
inline constexpr std::uint32_t kAudioSampleRate = 48'000;
inline constexpr std::uint8_t kMaxAudioChannels = 16;

struct FeedDescriptor {
  Codec codec = Codec::invalid;
  std::uint16_t width = 0;
  std::uint16_t height = 0;
  std::uint32_t frame_rate_num = 30000;
  std::uint32_t frame_rate_den = 1001;
  std::uint64_t bit_rate_bps = 0;  // picture and sound together
  AudioFormat audio;

  double frames_per_second() const {
    return frame_rate_den == 0 ? 0.0 : static_cast<double>(frame_rate_num) / frame_rate_den;
  }
  bool operator==(const FeedDescriptor&) const = default;
};

enum class TransportKind : std::uint8_t { invalid = 0, tcp = 1, mtcp = 2, srt = 3 };

std::string_view to_string(TransportKind kind);
std::optional<TransportKind> transport_from_string(std::string_view name);

// HELLO flags.
inline constexpr std::uint8_t kHelloProbe = 0x01;  // a `check` capacity probe, not a feed

struct Hello {
  FeedDescriptor feed;
  std::uint8_t flags = 0;  // kHelloProbe, ...
  TransportKind transport = TransportKind::tcp;
  std::uint8_t connections = 1;         // sub-connections of this feed (mtcp)
  std::uint32_t chunk_bytes = 0;        // nominal chunk payload size
  std::uint32_t latency_budget_ms = 0;  // how long the receiver may hold a frame
  std::uint32_t expected_rtt_us = 0;    // sender's planned RTT, for buffer checks
  std::uint64_t first_frame_seq = 0;    // sequence number of the first frame of this session
  // Extension 1 (mtcp; a 46-byte HELLO from an older sender means 0 and 0): which of the
  // `connections` sub-connections this is, and a random id shared by the sub-connections of one
  // sender session, so a receiver tells a reconnecting sub-connection from a new session.
  std::uint8_t subconnection = 0;
  std::uint64_t session_id = 0;
  // Extension 2 (two-path protection; a shorter HELLO means 1, 0 and 0): a protected feed is
  // sent in full over `legs` paths, this session being leg `leg` (0 = path A, 1 = path B); the
  // legs of one feed share a random `feed_id` for the feed's whole life, across reconnects, so
  // the receiver merges them into one feed (transport/leg_merge.hpp).
  std::uint8_t legs = 1;
  std::uint8_t leg = 0;
  std::uint64_t feed_id = 0;

  bool operator==(const Hello&) const = default;
};
inline constexpr std::uint8_t kMaxSubconnections = 16;
// On the wire, an srt HELLO with connections >= 2 (one feed striped over K SRT connections) says
// transport 4, not 3: a receiver older than stripes refuses it ("unknown transport 4") instead of
// taking stripe 0 for a whole feed. Decoded as TransportKind::srt with its connections.
inline constexpr std::uint8_t kWireSrtStriped = 4;
inline constexpr std::uint8_t kMaxLegs = 2;
// On the wire, a feed with audio sets this bit in its HELLO's codec byte (and carries extension
// 3): a receiver older than audio refuses it ("unknown codec 130") instead of taking each
// frame's sound for picture.
inline constexpr std::uint8_t kWireCodecWithAudio = 0x80;

enum class AckStatus : std::uint8_t {
  invalid = 0,
  accepted = 1,
  bad_stream = 2,    // stream id outside what the receiver serves
  stream_busy = 3,   // another session already carries this stream id
  bad_request = 4,   // malformed or unsupported feed / transport parameters
  unauthorized = 5,  // no or wrong pre-shared key (protocol/auth.hpp)
};

std::string_view to_string(AckStatus status);

struct HelloAck {
  AckStatus status = AckStatus::invalid;
  // One line for the sender's log; at most kMaxReasonBytes. On `accepted`, the receiver names
  // itself: receiver_identity().
  std::string reason;
  // Extension 1 (srt stripes; absent on every other answer): the UDP ports the receiver opened
  // for stripes 1 .. K-1 of an accepted striped SRT feed, in stripe order (docs/PROTOCOL.md).
  std::vector<std::uint16_t> stripe_ports;

  bool operator==(const HelloAck&) const = default;
};
inline constexpr std::size_t kMaxReasonBytes = 512;

// The receiver an accepting HELLO_ACK names (its receiver_identity(), common/provenance.hpp), as
// safe to print anywhere: every byte but printable ASCII becomes '?' (no escape sequences, no
// invalid UTF-8), at most kMaxReceiverNameBytes. Empty from receivers that name nothing (older
// ones).
std::string named_receiver(const HelloAck& ack);
inline constexpr std::size_t kMaxReceiverNameBytes = 128;

// The reason a refusing HELLO_ACK gives, safe to print anywhere as named_receiver() is: the
// receiver may be anyone the sender was pointed at.
std::string refusal_reason(const HelloAck& ack);

// What a refusal means when the receiver is older than what `hello` asks for (SRT stripes,
// audio), as a parenthesis to append to the sender's error line; empty otherwise.
std::string older_receiver_hint(const Hello& hello, const HelloAck& ack);

struct End {
  std::uint64_t frames_sent = 0;  // frame sequence numbers 0 .. frames_sent-1 were produced

  bool operator==(const End&) const = default;
};

// One frame delivered whole and verified, in a FEEDBACK report: the low 32 bits of its sequence
// number and its transit time, the receiver's wall clock at its last byte minus the sender's
// frame timestamp (what latency_us smooths), µs.
struct FeedbackTransit {
  std::uint32_t frame_seq = 0;
  std::int32_t transit_us = 0;

  bool operator==(const FeedbackTransit&) const = default;
};

// Receiver -> sender, about every 100 ms on the feed's connection: the far end's view of the
// feed (docs/PROTOCOL.md#feedback). Counters are cumulative for the stream; rates are the
// receiver's.
struct Feedback {
  std::int64_t report_ns = 0;         // receiver's wall clock when the report was taken
  std::uint64_t bytes = 0;            // payload bytes of frames delivered whole and verified
  std::uint64_t frames = 0;           // frames delivered whole and verified
  std::uint64_t drops = 0;            // frames missing, incomplete, late or failing verification
  std::uint64_t checksum_errors = 0;  // chunks or frames failing XXH3 / end-to-end checks
  std::uint32_t jitter_us = 0;        // RFC 3550 inter-arrival jitter
  std::uint32_t fps_milli = 0;        // frames delivered per second x 1000, over the last ~1 s
  std::int32_t latency_us = 0;        // smoothed arrival minus sender timestamp (may be < 0
                                      // across hosts whose clocks disagree)
  std::uint32_t interval_ms = 0;      // the receiver's reporting period
  // Extension 1 (minor revision; a 56-byte body from an older receiver: `extended` false and
  // the rest zero). Counters are cumulative for the stream, like the ones above.
  bool extended = false;
  std::uint64_t late_frames = 0;  // arrived whole after the reassembler gave them up (in drops)
  std::uint64_t loss_events = 0;  // runs of consecutive lost frames (in drops)
  std::uint64_t longest_loss_run = 0;     // frames in the longest such run
  std::uint64_t duplicate_chunks = 0;     // chunks received that had already been received
  std::uint64_t out_of_order_chunks = 0;  // arrived after a chunk of a later place in the feed
  // Frames delivered whole and verified since the previous report, oldest first (the newest
  // kMaxFeedbackTransits when more).
  std::vector<FeedbackTransit> transits;

  bool operator==(const Feedback&) const = default;
};
inline constexpr std::size_t kFeedbackBodyBytes = 8 * 5 + 4 * 4;  // the base body (56)
// Extension 1: five counters, transit_count, reserved; then 8 bytes per transit sample.
inline constexpr std::size_t kFeedbackExtendedBytes = kFeedbackBodyBytes + 8 * 5 + 2 + 2;  // 100
inline constexpr std::size_t kFeedbackTransitBytes = 4 + 4;
inline constexpr std::size_t kMaxFeedbackTransits = 256;
inline constexpr std::uint32_t kMaxFeedbackFpsMilli = 1000 * 1000;  // 1000 fps
inline constexpr std::uint32_t kMaxFeedbackJitterUs = 60'000'000;   // 60 s
inline constexpr std::uint32_t kMaxFeedbackIntervalMs = 60'000;
// A FEEDBACK header whose frame_seq is this carries the session's last report.
inline constexpr std::uint64_t kLastFeedbackMark = 1;

// Each encoder returns a complete message: 48-byte header followed by the body.
std::vector<std::byte> encode_hello(std::uint16_t stream_id, const Hello& hello);
std::vector<std::byte> encode_hello_ack(std::uint16_t stream_id, const HelloAck& ack);
std::vector<std::byte> encode_end(std::uint16_t stream_id, const End& end);
// `last`: the session's final report, sent after END (header frame_seq = kLastFeedbackMark).
// A Feedback with `extended` false is encoded as the 56-byte base body (as an older receiver
// sends it); otherwise with extension 1 and at most kMaxFeedbackTransits samples (the newest).
std::vector<std::byte> encode_feedback(std::uint16_t stream_id, const Feedback& feedback,
                                       bool last = false);

// Each decoder takes the body (after the header). Longer bodies from newer minor revisions are
// accepted and the extra bytes ignored; shorter or inconsistent bodies yield nullopt. A HELLO is
// either the 46-byte base body or at least 56 bytes (base + extension 1); anything in between
// is a truncated extension and yields nullopt; so is a body between extension 1 and the end of
// extension 2 (68 bytes), or between that and the end of extension 3 (76 bytes, audio), or a
// codec byte whose audio bit disagrees with extension 3.
std::optional<Hello> decode_hello(std::span<const std::byte> body);
std::optional<HelloAck> decode_hello_ack(std::span<const std::byte> body);
std::optional<End> decode_end(std::span<const std::byte> body);
// Also rejects out-of-range values (fps, jitter, interval) and frames + drops overflowing. A body
// of exactly 56 bytes decodes with `extended` false; 57..99 bytes, more than
// kMaxFeedbackTransits samples or fewer bytes than they need, reserved bits set, or late frames,
// loss events or the longest loss run above drops yield nullopt.
std::optional<Feedback> decode_feedback(std::span<const std::byte> body);

// Checks the semantic limits a receiver enforces on a HELLO; empty when acceptable.
std::string validate_hello(const Hello& hello);

}  // namespace hdstream
