// libFuzzer target: what a sender parses from a possibly hostile receiver after the handshake,
// the mtcp ACK (decode_ack) and the FEEDBACK report (decode_feedback), as bare bodies and as
// whole messages behind a header. Beyond crashes it checks logic: whatever decodes is within the
// documented limits, re-encodes to a valid message that decodes to the same value, and to the
// very bytes it came from (ACK: its reserved bytes zeroed), so no field is lost or misplaced.
// Input: one selector byte, then the bytes. Selector bits 0-1: 0 ACK body, 1 FEEDBACK body,
// 2 last FEEDBACK body, 3 whole message; bit 2 (whole messages): recompute the header's XXH3 so
// that bodies of any declared length reach the decoders.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "protocol/ack.hpp"
#include "protocol/checksum.hpp"
#include "protocol/handshake.hpp"
#include "protocol/wire.hpp"

namespace {

using namespace hdstream;

void check(bool condition) {
  if (!condition) __builtin_trap();
}

// The message an encoder wrote: a valid header of `type` whose checksum covers the body.
std::span<const std::byte> checked_body(std::span<const std::byte> message, MessageType type,
                                        std::uint64_t frame_seq) {
  MessageHeader header;
  check(decode_header(message, header) == HeaderError::none);
  check(header.type == type && header.stream_id == 3 && header.frame_seq == frame_seq);
  auto body = message.subspan(kHeaderBytes);
  check(header.payload_bytes == body.size());
  check(payload_checksum(body) == header.payload_xxh3);
  return body;
}

void ack_round_trip(std::span<const std::byte> body) {
  const auto ack = decode_ack(body);
  if (!ack) return;
  check(body.size() >= kAckBodyBytes);
  check(ack->subconnection < kMaxSubconnections);
  std::array<std::byte, kAckMessageBytes> message;
  encode_ack(3, *ack, message);
  const auto again_body = checked_body(message, MessageType::ack, 0);
  check(decode_ack(again_body) == ack);
  // Canonical: the 17 bytes that carry fields are the input's, the reserved 7 are zero.
  check(std::equal(again_body.begin(), again_body.begin() + 17, body.begin()));
  check(std::all_of(again_body.begin() + 17, again_body.end(),
                    [](std::byte b) { return b == std::byte{0}; }));
}

void feedback_round_trip(std::span<const std::byte> body, bool last) {
  const auto feedback = decode_feedback(body);
  if (!feedback) return;
  check(body.size() >= kFeedbackBodyBytes);
  check(feedback->report_ns > 0);
  check(feedback->jitter_us <= kMaxFeedbackJitterUs);
  check(feedback->fps_milli <= kMaxFeedbackFpsMilli);
  check(feedback->interval_ms >= 1 && feedback->interval_ms <= kMaxFeedbackIntervalMs);
  check(feedback->frames + feedback->drops >= feedback->frames);
  // Extension 1: a 56-byte body is an older receiver's; past it, the counters stay within drops.
  check(feedback->extended || body.size() == kFeedbackBodyBytes);
  check(feedback->transits.size() <= kMaxFeedbackTransits);
  check(feedback->late_frames <= feedback->drops && feedback->loss_events <= feedback->drops &&
        feedback->longest_loss_run <= feedback->drops);
  const auto message = encode_feedback(3, *feedback, last);
  const auto again_body =
      checked_body(message, MessageType::feedback, last ? kLastFeedbackMark : 0);
  check(decode_feedback(again_body) == feedback);
  // Every body byte up to the last transit sample is a field: re-encoding gives back exactly the
  // bytes that were read (what follows is a newer revision's, ignored).
  const std::size_t known =
      feedback->extended
          ? kFeedbackExtendedBytes + feedback->transits.size() * kFeedbackTransitBytes
          : kFeedbackBodyBytes;
  check(again_body.size() == known && body.size() >= known);
  check(std::equal(again_body.begin(), again_body.end(), body.begin()));
}

// A whole message as the tcp / mtcp / srt sender reads it: a header, then a body of
// payload_bytes whose checksum must match before it is decoded.
void whole_message(std::span<const std::byte> in, bool fix_checksum) {
  MessageHeader header;
  if (decode_header(in, header) != HeaderError::none) return;
  auto rest = in.subspan(kHeaderBytes);
  if (rest.size() < header.payload_bytes) return;
  const auto body = rest.first(header.payload_bytes);
  if (fix_checksum) header.payload_xxh3 = payload_checksum(body);
  if (payload_checksum(body) != header.payload_xxh3) return;
  if (header.type == MessageType::ack) ack_round_trip(body);
  if (header.type == MessageType::feedback) {
    feedback_round_trip(body, header.frame_seq == kLastFeedbackMark);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const auto body = std::as_bytes(std::span(data + 1, size - 1));
  switch (data[0] & 3) {
    case 0:
      ack_round_trip(body);
      break;
    case 1:
      feedback_round_trip(body, false);
      break;
    case 2:
      feedback_round_trip(body, true);
      break;
    default:
      whole_message(body, (data[0] & 4) != 0);
      break;
  }
  return 0;
}
