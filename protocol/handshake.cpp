#include "protocol/handshake.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include <fmt/format.h>

#include "common/printable.hpp"
#include "protocol/audio_block.hpp"
#include "protocol/byte_order.hpp"
#include "protocol/checksum.hpp"
#include "protocol/feed_limits.hpp"

namespace hdstream {
namespace {

constexpr std::array<std::pair<Codec, std::string_view>, 4> kCodecNames{{
    {Codec::synthetic, "synthetic"},
    {Codec::dnxhd, "dnxhd"},
    {Codec::v210, "v210"},
    {Codec::uyvy, "uyvy"},
}};

constexpr std::array<std::pair<TransportKind, std::string_view>, 3> kTransportNames{{
    {TransportKind::tcp, "tcp"},
    {TransportKind::mtcp, "mtcp"},
    {TransportKind::srt, "srt"},
}};

constexpr std::size_t kHelloBaseBytes = 1 + 1 + 2 + 2 + 4 + 4 + 8 + 1 + 1 + 2 + 4 + 4 + 4 + 8;
constexpr std::size_t kHelloExtension1Bytes = 1 + 1 + 8;      // subconnection, reserved, session id
constexpr std::size_t kHelloExtension2Bytes = 1 + 1 + 2 + 8;  // legs, leg, reserved, feed id
constexpr std::size_t kHelloExtension3Bytes = 1 + 1 + 2 + 4;  // channels, bits, reserved, rate
constexpr std::size_t kHelloBodyBytes =
    kHelloBaseBytes + kHelloExtension1Bytes + kHelloExtension2Bytes;

std::vector<std::byte> with_header(MessageType type, std::uint16_t stream_id,
                                   std::vector<std::byte> body_space, std::size_t body_bytes,
                                   std::uint64_t frame_seq = 0) {
  body_space.resize(kHeaderBytes + body_bytes);
  auto body = std::span<const std::byte>(body_space).subspan(kHeaderBytes);
  MessageHeader header;
  header.type = type;
  header.stream_id = stream_id;
  header.frame_seq = frame_seq;
  header.payload_bytes = static_cast<std::uint32_t>(body_bytes);
  header.payload_xxh3 = payload_checksum(body);
  encode_header(header, std::span<std::byte, kHeaderBytes>(body_space.data(), kHeaderBytes));
  return body_space;
}

}  // namespace

std::string_view to_string(Codec codec) {
  for (auto [value, name] : kCodecNames) {
    if (value == codec) return name;
  }
  return "invalid";
}

std::optional<Codec> codec_from_string(std::string_view name) {
  for (auto [value, known] : kCodecNames) {
    if (known == name) return value;
  }
  return std::nullopt;
}

std::string_view to_string(TransportKind kind) {
  for (auto [value, name] : kTransportNames) {
    if (value == kind) return name;
  }
  return "invalid";
}

std::optional<TransportKind> transport_from_string(std::string_view name) {
  for (auto [value, known] : kTransportNames) {
    if (known == name) return value;
  }
  return std::nullopt;
}

std::string_view to_string(AckStatus status) {
  switch (status) {
    case AckStatus::accepted:
      return "accepted";
    case AckStatus::bad_stream:
      return "stream id not served";
    case AckStatus::stream_busy:
      return "stream id already in use";
    case AckStatus::bad_request:
      return "bad request";
    case AckStatus::unauthorized:
      return "unauthorized";
    case AckStatus::invalid:
      break;
  }
  return "invalid";
}

std::vector<std::byte> encode_hello(std::uint16_t stream_id, const Hello& hello) {
  // A video-only feed's HELLO stays what receivers older than audio read (68 bytes).
  const bool audio = hello.feed.audio.present();
  std::vector<std::byte> out(kHeaderBytes + kHelloBodyBytes + (audio ? kHelloExtension3Bytes : 0));
  ByteWriter w{std::span(out).subspan(kHeaderBytes)};
  w.put<std::uint8_t>(static_cast<std::uint8_t>(hello.feed.codec) |
                      (audio ? kWireCodecWithAudio : 0));
  w.put<std::uint8_t>(hello.flags);
  w.put<std::uint16_t>(hello.feed.width);
  w.put<std::uint16_t>(hello.feed.height);
  w.put<std::uint32_t>(hello.feed.frame_rate_num);
  w.put<std::uint32_t>(hello.feed.frame_rate_den);
  w.put<std::uint64_t>(hello.feed.bit_rate_bps);
  const bool striped_srt = hello.transport == TransportKind::srt && hello.connections > 1;
  w.put<std::uint8_t>(striped_srt ? kWireSrtStriped : static_cast<std::uint8_t>(hello.transport));
  w.put<std::uint8_t>(hello.connections);
  w.put<std::uint16_t>(0);  // reserved
  w.put<std::uint32_t>(hello.chunk_bytes);
  w.put<std::uint32_t>(hello.latency_budget_ms);
  w.put<std::uint32_t>(hello.expected_rtt_us);
  w.put<std::uint64_t>(hello.first_frame_seq);
  w.put<std::uint8_t>(hello.subconnection);
  w.put<std::uint8_t>(0);  // reserved
  w.put<std::uint64_t>(hello.session_id);
  w.put<std::uint8_t>(hello.legs);
  w.put<std::uint8_t>(hello.leg);
  w.put<std::uint16_t>(0);  // reserved
  w.put<std::uint64_t>(hello.feed_id);
  if (audio) {
    w.put<std::uint8_t>(hello.feed.audio.channels);
    w.put<std::uint8_t>(hello.feed.audio.bits);
    w.put<std::uint16_t>(0);  // reserved
    w.put<std::uint32_t>(hello.feed.audio.sample_rate);
  }
  return with_header(MessageType::hello, stream_id, std::move(out), w.size());
}

std::optional<Hello> decode_hello(std::span<const std::byte> body) {
  ByteReader r(body);
  Hello hello;
  std::uint8_t codec = 0, transport = 0, reserved8 = 0;
  std::uint16_t reserved16 = 0;
  bool ok = r.get(codec) && r.get(hello.flags) && r.get(hello.feed.width) &&
            r.get(hello.feed.height) && r.get(hello.feed.frame_rate_num) &&
            r.get(hello.feed.frame_rate_den) && r.get(hello.feed.bit_rate_bps) &&
            r.get(transport) && r.get(hello.connections) && r.get(reserved16) &&
            r.get(hello.chunk_bytes) && r.get(hello.latency_budget_ms) &&
            r.get(hello.expected_rtt_us) && r.get(hello.first_frame_seq);
  if (!ok) return std::nullopt;
  if (r.remaining() > 0) {  // extension 1: all of it or nothing
    ok = r.get(hello.subconnection) && r.get(reserved8) && r.get(hello.session_id);
    if (!ok) return std::nullopt;
  }
  if (r.remaining() > 0) {  // extension 2: likewise
    ok = r.get(hello.legs) && r.get(hello.leg) && r.get(reserved16) && r.get(hello.feed_id);
    if (!ok) return std::nullopt;
  }
  if (r.remaining() > 0) {  // extension 3 (audio): likewise
    AudioFormat& audio = hello.feed.audio;
    ok =
        r.get(audio.channels) && r.get(audio.bits) && r.get(reserved16) && r.get(audio.sample_rate);
    if (!ok) return std::nullopt;
  }
  // The codec byte's audio bit and extension 3 say the same, or the HELLO is malformed; an
  // extension 3 without channels is no audio, whatever its other fields.
  if (((codec & kWireCodecWithAudio) != 0) != hello.feed.audio.present()) return std::nullopt;
  if (!hello.feed.audio.present()) hello.feed.audio = {};
  hello.feed.codec = static_cast<Codec>(codec & ~kWireCodecWithAudio);
  // A plain srt HELLO is one connection; several say so with their own code point.
  if (transport == static_cast<std::uint8_t>(TransportKind::srt) && hello.connections > 1) {
    return std::nullopt;
  }
  hello.transport =
      transport == kWireSrtStriped ? TransportKind::srt : static_cast<TransportKind>(transport);
  return hello;
}

std::string validate_hello(const Hello& hello) {
  if (to_string(hello.feed.codec) == "invalid") {
    return fmt::format("unknown codec {}", static_cast<int>(hello.feed.codec));
  }
  if (to_string(hello.transport) == "invalid") {
    return fmt::format("unknown transport {}", static_cast<int>(hello.transport));
  }
  if (const AudioFormat& audio = hello.feed.audio; audio.present()) {
    if (hello.feed.codec == Codec::synthetic) return "synthetic feeds carry no audio";
    if (hello.feed.frames_per_second() < 1.0) {
      // Bounds a frame's samples to the rate's (48,000), and with them every gap's silence.
      return "audio needs a frame rate of at least 1 fps";
    }
    if (audio.channels > kMaxAudioChannels || (audio.bits != 16 && audio.bits != 24) ||
        audio.sample_rate != kAudioSampleRate) {
      return fmt::format(
          "audio {} channels of {}-bit at {} Hz (1..{} channels, 16 or 24-bit, {} Hz)",
          audio.channels, audio.bits, audio.sample_rate, kMaxAudioChannels, kAudioSampleRate);
    }
  }
  if (hello.feed.frame_rate_num == 0 || hello.feed.frame_rate_den == 0 ||
      hello.feed.frame_rate_num > kMaxFrameRateTerm ||
      hello.feed.frame_rate_den > kMaxFrameRateTerm || hello.feed.frames_per_second() > 1000.0) {
    return fmt::format("frame rate {}/{} out of range", hello.feed.frame_rate_num,
                       hello.feed.frame_rate_den);
  }
  if (hello.connections == 0) return "zero connections";
  if (hello.connections > kMaxSubconnections) {
    return fmt::format("{} connections (at most {})", hello.connections, kMaxSubconnections);
  }
  if (hello.subconnection >= hello.connections) {
    return fmt::format("sub-connection {} of {}", hello.subconnection, hello.connections);
  }
  if (hello.legs == 0 || hello.legs > kMaxLegs) {
    return fmt::format("{} legs (1 or {})", hello.legs, kMaxLegs);
  }
  if (hello.leg >= hello.legs) return fmt::format("leg {} of {}", hello.leg, hello.legs);
  if (hello.legs > 1 && hello.feed_id == 0) return "a protected feed without a feed id";
  if (hello.chunk_bytes == 0 || hello.chunk_bytes > kMaxChunkBytes) {
    return fmt::format("chunk size {} out of range (1..{})", hello.chunk_bytes, kMaxChunkBytes);
  }
  // Everything below sizes something on the receiver: frames in flight, socket buffers,
  // decoders and displays (protocol/feed_limits.hpp).
  if (hello.latency_budget_ms > kMaxLatencyBudgetMs) {
    return fmt::format("latency budget {} ms out of range (0..{})", hello.latency_budget_ms,
                       kMaxLatencyBudgetMs);
  }
  if (hello.feed.bit_rate_bps > kMaxBitRateBps) {
    return fmt::format("bit rate {} bit/s out of range (0..{})", hello.feed.bit_rate_bps,
                       kMaxBitRateBps);
  }
  if (hello.expected_rtt_us > kMaxExpectedRttUs) {
    return fmt::format("expected RTT {} us out of range (0..{})", hello.expected_rtt_us,
                       kMaxExpectedRttUs);
  }
  const bool video = hello.feed.codec != Codec::synthetic;
  if (hello.feed.width > kMaxFrameWidth || hello.feed.height > kMaxFrameHeight ||
      (video && (hello.feed.width == 0 || hello.feed.height == 0))) {
    return fmt::format("picture size {}x{} out of range (at most {}x{}{})", hello.feed.width,
                       hello.feed.height, kMaxFrameWidth, kMaxFrameHeight,
                       video ? ", neither 0" : "");
  }
  if (const std::size_t raw = raw_frame_bytes(hello.feed);
      raw != 0 && raw + max_audio_block_bytes(hello.feed) > max_frame_bytes(hello)) {
    return fmt::format(
        "{} {}x{} frames are {} bytes: above the {} bytes a frame may have in {}-byte chunks",
        to_string(hello.feed.codec), hello.feed.width, hello.feed.height, raw,
        std::min<std::uint64_t>(kMaxFrameBytes,
                                std::uint64_t{kMaxChunksPerFrame} * hello.chunk_bytes),
        hello.chunk_bytes);
  }
  return {};
}

std::vector<std::byte> encode_hello_ack(std::uint16_t stream_id, const HelloAck& ack) {
  auto reason = std::string_view(ack.reason).substr(0, kMaxReasonBytes);
  const std::size_t stripes =
      std::min<std::size_t>(ack.stripe_ports.size(), kMaxSubconnections - 1);
  std::vector<std::byte> out(kHeaderBytes + 4 + reason.size() +
                             (stripes > 0 ? 1 + 2 * stripes : 0));
  ByteWriter w{std::span(out).subspan(kHeaderBytes)};
  w.put<std::uint8_t>(static_cast<std::uint8_t>(ack.status));
  w.put<std::uint8_t>(0);  // reserved
  w.put<std::uint16_t>(static_cast<std::uint16_t>(reason.size()));
  w.put_bytes(std::as_bytes(std::span(reason)));
  if (stripes > 0) {  // extension 1: only on a striped srt feed's acceptance
    w.put<std::uint8_t>(static_cast<std::uint8_t>(stripes));
    for (std::size_t i = 0; i < stripes; ++i) w.put<std::uint16_t>(ack.stripe_ports[i]);
  }
  return with_header(MessageType::hello_ack, stream_id, std::move(out), w.size());
}

std::optional<HelloAck> decode_hello_ack(std::span<const std::byte> body) {
  ByteReader r(body);
  std::uint8_t status = 0, reserved = 0;
  std::uint16_t reason_bytes = 0;
  std::span<const std::byte> reason;
  if (!(r.get(status) && r.get(reserved) && r.get(reason_bytes))) return std::nullopt;
  if (reason_bytes > kMaxReasonBytes || !r.get_bytes(reason_bytes, reason)) return std::nullopt;
  if (status == 0 || status > static_cast<std::uint8_t>(AckStatus::unauthorized)) {
    return std::nullopt;
  }
  HelloAck ack;
  ack.status = static_cast<AckStatus>(status);
  ack.reason.assign(reinterpret_cast<const char*>(reason.data()), reason.size());
  if (r.remaining() > 0) {  // extension 1: the stripe ports, all of them or nothing
    std::uint8_t stripes = 0;
    if (!r.get(stripes) || stripes == 0 || stripes >= kMaxSubconnections) return std::nullopt;
    ack.stripe_ports.resize(stripes);
    for (auto& port : ack.stripe_ports) {
      if (!r.get(port) || port == 0) return std::nullopt;
    }
  }
  return ack;
}

std::string named_receiver(const HelloAck& ack) {
  if (ack.status != AckStatus::accepted) return {};
  return printable(ack.reason, kMaxReceiverNameBytes);
}

std::string refusal_reason(const HelloAck& ack) {
  return printable(ack.reason, kMaxReasonBytes);
}

std::string older_receiver_hint(const Hello& hello, const HelloAck& ack) {
  if (ack.status != AckStatus::bad_request) return {};
  if (hello.transport == TransportKind::srt && hello.connections > 1 &&
      ack.reason.starts_with("unknown transport")) {
    return " (the receiver predates SRT stripes: upgrade it, or send with --conns 1)";
  }
  if (hello.feed.audio.present() && ack.reason.starts_with("unknown codec")) {
    return " (the receiver predates audio: upgrade it, or send a source without sound)";
  }
  return {};
}

std::vector<std::byte> encode_end(std::uint16_t stream_id, const End& end) {
  std::vector<std::byte> out(kHeaderBytes + 8);
  ByteWriter w{std::span(out).subspan(kHeaderBytes)};
  w.put<std::uint64_t>(end.frames_sent);
  return with_header(MessageType::end, stream_id, std::move(out), w.size());
}

std::optional<End> decode_end(std::span<const std::byte> body) {
  ByteReader r(body);
  End end;
  if (!r.get(end.frames_sent)) return std::nullopt;
  return end;
}

std::vector<std::byte> encode_feedback(std::uint16_t stream_id, const Feedback& feedback,
                                       bool last) {
  const std::size_t transits =
      feedback.extended ? std::min(feedback.transits.size(), kMaxFeedbackTransits) : 0;
  const std::size_t body_bytes = feedback.extended
                                     ? kFeedbackExtendedBytes + transits * kFeedbackTransitBytes
                                     : kFeedbackBodyBytes;
  std::vector<std::byte> out(kHeaderBytes + body_bytes);
  ByteWriter w{std::span(out).subspan(kHeaderBytes)};
  w.put<std::uint64_t>(static_cast<std::uint64_t>(feedback.report_ns));
  w.put<std::uint64_t>(feedback.bytes);
  w.put<std::uint64_t>(feedback.frames);
  w.put<std::uint64_t>(feedback.drops);
  w.put<std::uint64_t>(feedback.checksum_errors);
  w.put<std::uint32_t>(feedback.jitter_us);
  w.put<std::uint32_t>(feedback.fps_milli);
  w.put<std::uint32_t>(static_cast<std::uint32_t>(feedback.latency_us));
  w.put<std::uint32_t>(feedback.interval_ms);
  if (feedback.extended) {
    w.put<std::uint64_t>(feedback.late_frames);
    w.put<std::uint64_t>(feedback.loss_events);
    w.put<std::uint64_t>(feedback.longest_loss_run);
    w.put<std::uint64_t>(feedback.duplicate_chunks);
    w.put<std::uint64_t>(feedback.out_of_order_chunks);
    w.put<std::uint16_t>(static_cast<std::uint16_t>(transits));
    w.put<std::uint16_t>(0);  // reserved
    // The newest samples when there are more than a report carries.
    for (const auto& t : std::span(feedback.transits).last(transits)) {
      w.put<std::uint32_t>(t.frame_seq);
      w.put<std::uint32_t>(static_cast<std::uint32_t>(t.transit_us));
    }
  }
  return with_header(MessageType::feedback, stream_id, std::move(out), w.size(),
                     last ? kLastFeedbackMark : 0);
}

std::optional<Feedback> decode_feedback(std::span<const std::byte> body) {
  ByteReader r(body);
  Feedback f;
  std::uint64_t report_ns = 0;
  std::uint32_t latency_us = 0;
  const bool ok = r.get(report_ns) && r.get(f.bytes) && r.get(f.frames) && r.get(f.drops) &&
                  r.get(f.checksum_errors) && r.get(f.jitter_us) && r.get(f.fps_milli) &&
                  r.get(latency_us) && r.get(f.interval_ms);
  if (!ok) return std::nullopt;
  f.report_ns = static_cast<std::int64_t>(report_ns);
  f.latency_us = static_cast<std::int32_t>(latency_us);
  if (f.report_ns <= 0 || f.fps_milli > kMaxFeedbackFpsMilli ||
      f.jitter_us > kMaxFeedbackJitterUs || f.interval_ms == 0 ||
      f.interval_ms > kMaxFeedbackIntervalMs || f.frames + f.drops < f.frames) {
    return std::nullopt;
  }
  if (body.size() == kFeedbackBodyBytes) return f;  // an older receiver: no extension
  std::uint16_t transit_count = 0;
  std::uint16_t reserved = 0;
  const bool extension_ok = r.get(f.late_frames) && r.get(f.loss_events) &&
                            r.get(f.longest_loss_run) && r.get(f.duplicate_chunks) &&
                            r.get(f.out_of_order_chunks) && r.get(transit_count) && r.get(reserved);
  if (!extension_ok || reserved != 0 || transit_count > kMaxFeedbackTransits ||
      r.remaining() < transit_count * kFeedbackTransitBytes || f.late_frames > f.drops ||
      f.loss_events > f.drops || f.longest_loss_run > f.drops) {
    return std::nullopt;
  }
  f.extended = true;
  f.transits.resize(transit_count);
  for (auto& t : f.transits) {
    std::uint32_t transit_us = 0;
    r.get(t.frame_seq);
    r.get(transit_us);
    t.transit_us = static_cast<std::int32_t>(transit_us);
  }
  return f;  // bytes beyond the samples: a newer revision's fields, ignored
}

}  // namespace hdstream
