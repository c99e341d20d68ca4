// Rebuilds whole frames from chunks, verifying every chunk's XXH3-64, and hands them out in
// frame order. Pure: no I/O, time passed in. Tolerates duplicated, reordered, truncated,
// corrupted and hostile chunks; everything it refuses is counted.
//
//   Reassembler r(stream_id, {.first_seq = hello_first_seq}, pool);
//   r.push(header, payload, now_ns);                  // or begin_chunk()/commit_chunk()
//   while (FramePtr frame = r.pop(now_ns)) deliver(frame);
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <set>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "protocol/frame.hpp"
#include "protocol/handshake.hpp"
#include "protocol/wire.hpp"

namespace hdstream {

struct ReassemblerConfig {
  std::uint64_t first_seq = 0;           // the sender's first frame (from HELLO)
  std::size_t max_frames_in_flight = 8;  // bounds memory: older incomplete frames are dropped
  // How long a complete frame waits for earlier, incomplete ones before they are given up.
  // 0 suits in-order transports (tcp): a gap there can never be filled.
  std::int64_t latency_budget_ns = 0;
  std::uint32_t max_frame_bytes = kMaxFrameBytes;
  // The HELLO's chunk size: every chunk but a frame's last carries exactly this many bytes at
  // index x chunk_bytes, so a frame has exactly ceil(frame_bytes / chunk_bytes) chunks and a
  // chunk's geometry is checked before its frame is allocated. 0: any stride.
  std::uint32_t chunk_bytes = 0;
  // Chunks for frames further ahead than this are refused (a hostile or broken peer would
  // otherwise turn one chunk into billions of "missing" frames).
  std::uint64_t max_seq_ahead = 1u << 16;
};

// What a HELLO fixes: the first frame, the largest frame (max_frame_bytes(hello),
// protocol/feed_limits.hpp) and the chunk size. The transport sets frames in flight and the
// latency budget.
ReassemblerConfig reassembler_config(const Hello& hello);

// How many frames a Reassembler remembers after delivering or giving them up, with the chunks
// that had arrived of a given-up one: what tells a duplicate from a late chunk (FEEDBACK).
inline constexpr std::size_t kSettledFramesRemembered = 64;

// The most memory a Reassembler with `config` can hold at once: max_frames_in_flight frames,
// plus one per payload read in progress (`readers`: a frame given up during a two-phase intake
// lives until its commit), each of at most max_frame_bytes plus its chunk bookkeeping, plus the
// chunk bookkeeping of the frames it remembers. What a receiver reserves for a session
// (protocol/memory_budget.hpp). Saturates instead of wrapping.
std::uint64_t memory_bytes(const ReassemblerConfig& config, std::size_t readers);

enum class ChunkResult : std::uint8_t {
  accepted = 1,
  duplicate,          // this chunk was already received (or is being received), even if its
                      // frame has since been delivered or given up
  late,               // its frame was already given up (or is too old to remember)
  inconsistent,       // disagrees with the frame's other chunks, wrong stream, or out of window
  too_large,          // frame above max_frame_bytes: the peer broke its HELLO's promise
  checksum_mismatch,  // payload does not match its XXH3-64
};

std::string_view to_string(ChunkResult result);

struct ReassemblerCounters {
  std::uint64_t chunks_accepted = 0;
  std::uint64_t checksum_errors = 0;
  std::uint64_t duplicate_chunks = 0;  // ChunkResult::duplicate
  std::uint64_t late_chunks = 0;       // ChunkResult::late
  std::uint64_t rejected_chunks = 0;   // inconsistent or too large
  std::uint64_t frames_completed = 0;
  std::uint64_t frames_dropped = 0;  // missing, incomplete or late
  // Of frames_dropped, those whose every chunk arrived: before they were given up (to make
  // room), or after (late chunks; told by their headers: a late chunk's payload is not read).
  std::uint64_t late_frames = 0;
  // Runs of consecutive frames given up (nothing delivered between), and the longest one.
  std::uint64_t loss_events = 0;
  std::uint64_t longest_loss_run = 0;
  // Chunks, accepted or late, arriving after a chunk of a later frame, or of a later index in
  // the same frame (duplicates and refused chunks are not counted here).
  std::uint64_t out_of_order_chunks = 0;
};

class Reassembler {
 public:
  Reassembler(std::uint16_t stream_id, ReassemblerConfig config, FramePool& pool);

  // Two-phase intake lets a transport read a payload straight into its place in the frame.
  // When `result` is not `accepted`, `destination` is empty and the payload must be discarded.
  // `hold` keeps the frame's buffer alive until commit even if the frame is given up meanwhile.
  struct Slot {
    ChunkResult result;
    std::span<std::byte> destination;
    FramePtr hold;
  };
  Slot begin_chunk(const MessageHeader& header, std::int64_t now_ns);
  // Verifies the payload now in the slot's destination and records the chunk.
  ChunkResult commit_chunk(const MessageHeader& header, std::int64_t now_ns);

  // Where the chunks after `header` (a begun chunk) will land if they come next in their
  // frame's order, as a tcp session sends them: the following chunks still missing, up to
  // `max_chunks` of them and the frame's last. Nothing is claimed: a transport may read their
  // payloads ahead of their headers, since a missing chunk's place holds nothing verified, and
  // then begins each chunk with its header as usual; `frame` keeps the buffer out of the pool
  // meanwhile, even if the frame is given up. No chunks when the HELLO gave no chunk size.
  struct Ahead {
    std::uint64_t frame_seq;
    std::uint16_t chunk_index;
    std::span<std::byte> destination;
  };
  struct Lookahead {
    FramePtr frame;
    std::vector<Ahead> chunks;
  };
  void chunks_ahead(const MessageHeader& header, std::size_t max_chunks, Lookahead& out) const;

  // The payload of a begun chunk will never arrive (its connection broke mid-chunk): the chunk
  // is missing again, so a copy re-sent on another connection is accepted, not a duplicate.
  void abort_chunk(const MessageHeader& header);

  // begin_chunk + copy + commit_chunk, for transports that already hold the payload.
  ChunkResult push(const MessageHeader& header, std::span<const std::byte> payload,
                   std::int64_t now_ns);

  // The next frame in order, if it is complete; frames that can no longer be delivered in
  // time are given up (counted in frames_dropped). Call until it returns null after each chunk.
  FramePtr pop(std::int64_t now_ns);

  // The sender said it produced frames first_seq .. frames_sent-1: whatever is still missing
  // is dropped once the complete frames have been popped.
  void finish(std::uint64_t frames_sent);
  // The session ended without END: frames still incomplete are dropped.
  void abandon();

  const ReassemblerCounters& counters() const { return counters_; }
  std::uint64_t next_seq() const { return next_seq_; }
  std::size_t frames_in_flight() const { return pending_.size(); }

 private:
  enum class ChunkState : std::uint8_t { missing, receiving, received };
  struct Pending {
    FramePtr frame;
    std::uint16_t chunk_count = 0;
    std::uint16_t chunks_received = 0;
    std::uint32_t stride = 0;       // payload size of every chunk but the last (0: unknown yet)
    std::int64_t last_offset = -1;  // offset of the last chunk, when seen before the stride
    std::int64_t complete_ns = -1;  // when the last chunk arrived
    std::uint64_t fingerprint = 0;  // sum of the received chunks' chunk_fingerprint()
    std::vector<ChunkState> chunks;
    bool complete() const { return chunks_received == chunk_count; }
  };

  // A frame below next_seq_: delivered, or given up (with what had arrived of it). The last
  // kSettledFrames are remembered, so a chunk arriving for one is told apart: a duplicate, or a
  // late chunk that may make its frame whole after all (late_frames).
  struct Settled {
    std::uint64_t seq = UINT64_MAX;  // none (a frame below next_seq_ is never UINT64_MAX)
    bool delivered = false;
    bool whole = false;             // given up, and every chunk arrived (counted once)
    std::uint16_t chunk_count = 0;  // 0: none of its chunks seen yet
    std::uint16_t chunks_received = 0;
    std::vector<ChunkState> chunks;
  };
  static constexpr std::size_t kSettledFrames = kSettledFramesRemembered;

  ChunkResult check_geometry(Pending& pending, const MessageHeader& header) const;
  ChunkResult settled_chunk(const MessageHeader& header);
  void note_order(const MessageHeader& header);
  void give_up(std::uint64_t first_seq, std::uint64_t count, Pending* pending);
  void drop_head();
  void erase(std::uint64_t seq);
  bool should_give_up_head(std::int64_t now_ns) const;

  std::uint16_t stream_id_;
  ReassemblerConfig config_;
  FramePool& pool_;
  // Frames in flight: a chunk finds its frame with one hash lookup, whatever their number (a
  // stranger's HELLO may ask for thousands of tiny frames, then send duplicates). Their seqs in
  // order, and those of the complete ones, change only as a frame starts, completes or ends.
  std::unordered_map<std::uint64_t, Pending> pending_;
  std::set<std::uint64_t> order_;
  std::set<std::uint64_t> complete_;
  std::uint64_t next_seq_;
  std::uint64_t end_seq_ = 0;
  bool finished_ = false;
  ReassemblerCounters counters_;
  std::array<Settled, kSettledFrames> settled_;  // by seq % kSettledFrames
  std::uint64_t loss_run_ = 0;                   // frames given up since the last delivery
  bool seen_chunk_ = false;                      // the furthest place a chunk came from:
  std::uint64_t furthest_seq_ = 0;
  std::uint16_t furthest_index_ = 0;
};

}  // namespace hdstream
