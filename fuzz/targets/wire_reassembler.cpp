// libFuzzer target: arbitrary byte streams as a receiver sees them, through decode_header and
// the Reassembler. Input: one mode byte, then records of [48-byte header][payload].
//   mode bit 0: recompute each chunk's XXH3 so that payloads reach the frame buffers
//   mode bit 1: force the stream id to the reassembler's own
//   mode bit 2: a latency budget (out-of-order transports) instead of 0 (tcp)
#include <cstddef>
#include <cstdint>
#include <span>

#include "protocol/checksum.hpp"
#include "protocol/reassembler.hpp"
#include "protocol/wire.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace hdstream;
  if (size < 1) return 0;
  const std::uint8_t mode = data[0];
  auto in = std::as_bytes(std::span(data + 1, size - 1));

  FramePool pool(4);
  ReassemblerConfig config;
  config.first_seq = 0;
  config.max_frames_in_flight = 4;
  config.latency_budget_ns = (mode & 4) ? 5'000'000 : 0;
  config.max_frame_bytes =
      1u << 20;  // keeps the fuzzer's memory small; the limit path is what matters
  config.max_seq_ahead = 1024;
  Reassembler reassembler(7, config, pool);

  std::int64_t now_ns = 1'000'000'000;
  while (in.size() >= kHeaderBytes) {
    MessageHeader header;
    const HeaderError error = decode_header(in.first(kHeaderBytes), header);
    in = in.subspan(kHeaderBytes);
    if (error != HeaderError::none) continue;  // a receiver would close; keep exploring
    if (header.type != MessageType::chunk) continue;
    const std::size_t available = std::min<std::size_t>(in.size(), header.payload_bytes);
    auto payload = in.first(available);
    in = in.subspan(available);
    if (mode & 2) header.stream_id = 7;
    if (mode & 1) header.payload_xxh3 = payload_checksum(payload);
    reassembler.push(header, payload, now_ns);
    now_ns += 1'000'000;
    while (FramePtr frame = reassembler.pop(now_ns)) {
      if (frame->data.size() > config.max_frame_bytes) __builtin_trap();
    }
    if (reassembler.frames_in_flight() > config.max_frames_in_flight + 1) __builtin_trap();
  }
  if (mode & 8) {
    reassembler.finish(reassembler.next_seq() + (mode >> 4));
  } else {
    reassembler.abandon();
  }
  while (reassembler.pop(now_ns)) {
  }
  // What FEEDBACK reports about loss stays within the drops, as a sender's decoder demands.
  const auto& c = reassembler.counters();
  if (c.late_frames > c.frames_dropped || c.loss_events > c.frames_dropped ||
      c.longest_loss_run > c.frames_dropped) {
    __builtin_trap();
  }
  return 0;
}
