#include "protocol/reassembler.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "protocol/checksum.hpp"
#include "protocol/feed_limits.hpp"

namespace hdstream {

std::string_view to_string(ChunkResult result) {
  switch (result) {
    case ChunkResult::accepted:
      return "accepted";
    case ChunkResult::duplicate:
      return "duplicate chunk";
    case ChunkResult::late:
      return "late chunk";
    case ChunkResult::inconsistent:
      return "inconsistent chunk";
    case ChunkResult::too_large:
      return "frame too large";
    case ChunkResult::checksum_mismatch:
      return "checksum mismatch";
  }
  return "unknown";
}

namespace {
// Per frame in flight besides its bytes: the hash and set nodes, the Frame, its control block and
// its buffer's kFrameSlackBytes.
constexpr std::uint64_t kFrameOverheadBytes = 512;

// What the header alone says about a chunk's place in its frame, checked before the frame is
// allocated: the last chunk ends at frame_bytes, the others are non-empty, and with a known
// chunk size every chunk sits at index x chunk_bytes in a frame of exactly that many chunks.
bool plausible_geometry(const MessageHeader& h, std::uint32_t chunk_bytes) {
  const bool last = h.chunk_index + 1 == h.chunk_count;
  if (last && std::uint64_t{h.payload_offset} + h.payload_bytes != h.frame_bytes) return false;
  if (!last && h.payload_bytes == 0) return false;
  if (chunk_bytes == 0) return true;
  const std::uint64_t chunks =
      h.frame_bytes == 0 ? 1 : (std::uint64_t{h.frame_bytes} + chunk_bytes - 1) / chunk_bytes;
  return h.chunk_count == chunks &&
         std::uint64_t{h.chunk_index} * chunk_bytes == h.payload_offset &&
         (last || h.payload_bytes == chunk_bytes);
}
}  // namespace

ReassemblerConfig reassembler_config(const Hello& hello) {
  ReassemblerConfig config;
  config.first_seq = hello.first_frame_seq;
  config.max_frame_bytes = max_frame_bytes(hello);
  config.chunk_bytes = hello.chunk_bytes;
  return config;
}

std::uint64_t memory_bytes(const ReassemblerConfig& config, std::size_t readers) {
  const std::uint64_t chunks =
      config.chunk_bytes == 0
          ? kMaxChunksPerFrame
          : std::max<std::uint64_t>(
                1, (std::uint64_t{config.max_frame_bytes} + config.chunk_bytes - 1) /
                       config.chunk_bytes);
  const std::uint64_t per_frame = config.max_frame_bytes + chunks + kFrameOverheadBytes;
  const std::uint64_t in_flight = std::max<std::uint64_t>(1, config.max_frames_in_flight);
  // Saturates rather than wraps for any frame count a caller may configure.
  if (readers > UINT64_MAX - in_flight) return UINT64_MAX;
  const std::uint64_t frames = in_flight + readers;
  if (frames > UINT64_MAX / per_frame) return UINT64_MAX;
  const std::uint64_t remembered = kSettledFramesRemembered * chunks;
  return frames * per_frame > UINT64_MAX - remembered ? UINT64_MAX
                                                      : frames * per_frame + remembered;
}

Reassembler::Reassembler(std::uint16_t stream_id, ReassemblerConfig config, FramePool& pool)
    : stream_id_(stream_id), config_(config), pool_(pool), next_seq_(config.first_seq) {
  config_.max_frames_in_flight = std::max<std::size_t>(1, config_.max_frames_in_flight);
}

// Chunks of a frame must tile it exactly: every chunk but the last has the same size (the
// stride) at offset index * stride, and the last one ends at frame_bytes.
ChunkResult Reassembler::check_geometry(Pending& pending, const MessageHeader& h) const {
  const Frame& frame = *pending.frame;
  if (h.frame_bytes != frame.data.size() || h.chunk_count != pending.chunk_count ||
      h.timestamp_ns != frame.ready_ns) {
    return ChunkResult::inconsistent;
  }
  // plausible_geometry() already checked what the header says on its own.
  const bool last = h.chunk_index + 1 == h.chunk_count;
  if (last) {
    if (pending.stride != 0 && std::uint64_t{pending.stride} * h.chunk_index != h.payload_offset) {
      return ChunkResult::inconsistent;
    }
    return ChunkResult::accepted;
  }
  if (pending.stride != 0 && h.payload_bytes != pending.stride) return ChunkResult::inconsistent;
  if (std::uint64_t{h.payload_bytes} * h.chunk_index != h.payload_offset) {
    return ChunkResult::inconsistent;
  }
  if (pending.last_offset >= 0 && std::uint64_t{h.payload_bytes} * (h.chunk_count - 1u) !=
                                      static_cast<std::uint64_t>(pending.last_offset)) {
    return ChunkResult::inconsistent;
  }
  return ChunkResult::accepted;
}

Reassembler::Slot Reassembler::begin_chunk(const MessageHeader& h, std::int64_t /*now_ns*/) {
  auto refuse = [this](ChunkResult result) {
    switch (result) {
      case ChunkResult::duplicate:
        ++counters_.duplicate_chunks;
        break;
      case ChunkResult::late:
        ++counters_.late_chunks;
        break;
      default:
        ++counters_.rejected_chunks;
        break;
    }
    return Slot{result, {}, nullptr};
  };
  if (h.type != MessageType::chunk || h.stream_id != stream_id_ || h.chunk_count == 0 ||
      h.chunk_index >= h.chunk_count ||
      std::uint64_t{h.payload_offset} + h.payload_bytes > h.frame_bytes) {
    return refuse(ChunkResult::inconsistent);
  }
  if (h.frame_bytes > config_.max_frame_bytes) return refuse(ChunkResult::too_large);
  if (!plausible_geometry(h, config_.chunk_bytes)) return refuse(ChunkResult::inconsistent);
  if (h.frame_seq < next_seq_) return refuse(settled_chunk(h));
  if (finished_ && h.frame_seq >= end_seq_) return refuse(ChunkResult::late);
  if (h.frame_seq - next_seq_ >= config_.max_seq_ahead) return refuse(ChunkResult::inconsistent);

  auto it = pending_.find(h.frame_seq);
  if (it == pending_.end()) {
    // Make room by giving up the oldest frames; a newer frame is worth more to a live feed.
    while (pending_.size() >= config_.max_frames_in_flight) drop_head();
    if (h.frame_seq < next_seq_) return refuse(settled_chunk(h));
    Pending fresh;
    fresh.frame = pool_.acquire(h.frame_bytes, config_.max_frame_bytes);
    fresh.frame->stream_id = stream_id_;
    fresh.frame->seq = h.frame_seq;
    fresh.frame->ready_ns = h.timestamp_ns;
    fresh.chunk_count = h.chunk_count;
    fresh.chunks.assign(h.chunk_count, ChunkState::missing);
    it = pending_.emplace(h.frame_seq, std::move(fresh)).first;
    order_.insert(h.frame_seq);
  }
  Pending& pending = it->second;
  if (auto geometry = check_geometry(pending, h); geometry != ChunkResult::accepted) {
    return refuse(geometry);
  }
  ChunkState& state = pending.chunks[h.chunk_index];
  if (state != ChunkState::missing) return refuse(ChunkResult::duplicate);
  state = ChunkState::receiving;
  note_order(h);
  if (h.chunk_index + 1 == h.chunk_count) {
    pending.last_offset = h.payload_offset;
  } else {
    pending.stride = h.payload_bytes;
  }
  auto destination = std::span(pending.frame->data).subspan(h.payload_offset, h.payload_bytes);
  return Slot{ChunkResult::accepted, destination, pending.frame};
}

ChunkResult Reassembler::commit_chunk(const MessageHeader& h, std::int64_t now_ns) {
  auto it = pending_.find(h.frame_seq);
  if (it == pending_.end()) {
    ++counters_.late_chunks;  // given up while its payload was being received
    return ChunkResult::late;
  }
  Pending& pending = it->second;
  ChunkState& state = pending.chunks[h.chunk_index];
  if (state != ChunkState::receiving) {
    ++counters_.rejected_chunks;
    return ChunkResult::inconsistent;
  }
  auto payload =
      std::span<const std::byte>(pending.frame->data).subspan(h.payload_offset, h.payload_bytes);
  if (payload_checksum(payload) != h.payload_xxh3) {
    state = ChunkState::missing;
    ++counters_.checksum_errors;
    return ChunkResult::checksum_mismatch;
  }
  state = ChunkState::received;
  ++pending.chunks_received;
  ++counters_.chunks_accepted;
  pending.fingerprint += chunk_fingerprint(h.payload_xxh3, h.chunk_index);
  if (pending.complete()) {
    complete_.insert(h.frame_seq);
    pending.complete_ns = now_ns;
    pending.frame->arrival_ns = now_ns;
    pending.frame->content_fingerprint = pending.fingerprint;
  }
  return ChunkResult::accepted;
}

void Reassembler::chunks_ahead(const MessageHeader& h, std::size_t max_chunks,
                               Lookahead& out) const {
  out.frame.reset();
  out.chunks.clear();
  const auto it = pending_.find(h.frame_seq);
  if (config_.chunk_bytes == 0 || it == pending_.end()) return;
  const Pending& pending = it->second;
  out.frame = pending.frame;
  const std::span<std::byte> data(pending.frame->data);
  for (std::size_t index = h.chunk_index + 1u;
       index < pending.chunk_count && out.chunks.size() < max_chunks &&
       pending.chunks[index] == ChunkState::missing;
       ++index) {
    const std::size_t offset = index * config_.chunk_bytes;
    const std::size_t length = std::min<std::size_t>(config_.chunk_bytes, data.size() - offset);
    out.chunks.push_back(
        {h.frame_seq, static_cast<std::uint16_t>(index), data.subspan(offset, length)});
  }
}

void Reassembler::abort_chunk(const MessageHeader& h) {
  auto it = pending_.find(h.frame_seq);
  if (it == pending_.end() || h.chunk_index >= it->second.chunks.size()) return;
  ChunkState& state = it->second.chunks[h.chunk_index];
  if (state == ChunkState::receiving) state = ChunkState::missing;
}

ChunkResult Reassembler::push(const MessageHeader& h, std::span<const std::byte> payload,
                              std::int64_t now_ns) {
  if (payload.size() != h.payload_bytes) {
    ++counters_.rejected_chunks;
    return ChunkResult::inconsistent;
  }
  Slot slot = begin_chunk(h, now_ns);
  if (slot.result != ChunkResult::accepted) return slot.result;
  // A zero-byte frame has an empty (null) destination: memcpy must not see it (fuzz finding).
  if (!payload.empty()) std::memcpy(slot.destination.data(), payload.data(), payload.size());
  return commit_chunk(h, now_ns);
}

// A chunk of a frame below next_seq_, whose header is otherwise valid.
ChunkResult Reassembler::settled_chunk(const MessageHeader& h) {
  Settled& settled = settled_[h.frame_seq % kSettledFrames];
  if (settled.seq != h.frame_seq) {  // too old to remember
    note_order(h);
    return ChunkResult::late;
  }
  if (settled.delivered) return ChunkResult::duplicate;
  if (settled.chunk_count == 0) {
    settled.chunk_count = h.chunk_count;
    settled.chunks.assign(h.chunk_count, ChunkState::missing);
  }
  if (h.chunk_count != settled.chunk_count) return ChunkResult::late;  // not its frame's geometry
  ChunkState& state = settled.chunks[h.chunk_index];
  if (state == ChunkState::received) return ChunkResult::duplicate;
  note_order(h);
  state = ChunkState::received;
  if (++settled.chunks_received == settled.chunk_count && !settled.whole) {
    settled.whole = true;
    ++counters_.late_frames;
  }
  return ChunkResult::late;
}

void Reassembler::note_order(const MessageHeader& h) {
  if (seen_chunk_ && (h.frame_seq < furthest_seq_ ||
                      (h.frame_seq == furthest_seq_ && h.chunk_index < furthest_index_))) {
    ++counters_.out_of_order_chunks;
    return;
  }
  seen_chunk_ = true;
  furthest_seq_ = h.frame_seq;
  furthest_index_ = h.chunk_index;
}

// Frames first_seq .. first_seq+count-1 are lost: `pending` is the one frame of them seen (null:
// none was).
void Reassembler::give_up(std::uint64_t first_seq, std::uint64_t count, Pending* pending) {
  counters_.frames_dropped += count;
  if (loss_run_ == 0) ++counters_.loss_events;  // nothing delivered since the last loss
  loss_run_ += count;
  counters_.longest_loss_run = std::max(counters_.longest_loss_run, loss_run_);
  const std::uint64_t end = first_seq + count;
  for (std::uint64_t seq = count > kSettledFrames ? end - kSettledFrames : first_seq; seq < end;
       ++seq) {
    Settled& settled = settled_[seq % kSettledFrames];
    settled.seq = seq;
    settled.delivered = false;
    settled.whole = false;
    settled.chunk_count = 0;
    settled.chunks_received = 0;
    settled.chunks.clear();
    if (pending == nullptr) continue;
    settled.chunk_count = pending->chunk_count;
    settled.chunks_received = pending->chunks_received;
    settled.chunks.swap(pending->chunks);  // no allocation: the frame is going anyway
    if (pending->complete()) {             // whole, but given up to make room for newer frames
      settled.whole = true;
      ++counters_.late_frames;
    }
  }
}

void Reassembler::drop_head() {
  if (pending_.empty()) {
    if (finished_ && next_seq_ < end_seq_) {
      give_up(next_seq_, end_seq_ - next_seq_, nullptr);
      next_seq_ = end_seq_;
    }
    return;
  }
  const std::uint64_t head = *order_.begin();
  if (head > next_seq_) {
    give_up(next_seq_, head - next_seq_, nullptr);  // never seen at all
    next_seq_ = head;
    return;
  }
  give_up(next_seq_, 1, &pending_.at(head));  // seen but incomplete
  erase(head);
  ++next_seq_;
}

void Reassembler::erase(std::uint64_t seq) {
  pending_.erase(seq);
  order_.erase(seq);
  complete_.erase(seq);
}

bool Reassembler::should_give_up_head(std::int64_t now_ns) const {
  if (finished_) return true;
  if (pending_.size() > config_.max_frames_in_flight) return true;
  // A later frame is complete: wait for the earlier ones no longer than the latency budget.
  auto later = complete_.begin();
  if (later != complete_.end() && *later == next_seq_) ++later;
  if (later == complete_.end()) return false;
  return now_ns - pending_.at(*later).complete_ns >= config_.latency_budget_ns;
}

FramePtr Reassembler::pop(std::int64_t now_ns) {
  for (;;) {
    if (!complete_.empty() && *complete_.begin() == next_seq_) {
      FramePtr frame = std::move(pending_.at(next_seq_).frame);
      erase(next_seq_);
      Settled& settled = settled_[next_seq_ % kSettledFrames];
      settled.seq = next_seq_;
      settled.delivered = true;
      loss_run_ = 0;
      ++next_seq_;
      ++counters_.frames_completed;
      return frame;
    }
    const bool nothing_left = pending_.empty() && (!finished_ || next_seq_ >= end_seq_);
    if (nothing_left || !should_give_up_head(now_ns)) return nullptr;
    drop_head();
  }
}

void Reassembler::finish(std::uint64_t frames_sent) {
  finished_ = true;
  end_seq_ = std::max(frames_sent, next_seq_);
  // Chunks of frames the sender says it never produced are inconsistent; drop them now.
  while (!order_.empty() && *order_.rbegin() >= end_seq_) {
    erase(*order_.rbegin());
    ++counters_.rejected_chunks;
  }
}

void Reassembler::abandon() {
  const std::uint64_t end = order_.empty() ? next_seq_ : *order_.rbegin() + 1;
  finish(end);
}

}  // namespace hdstream
