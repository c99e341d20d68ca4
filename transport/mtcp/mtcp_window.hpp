// mtcp's resend window, pure (no sockets): frames stay here, packetized, until every chunk is
// acknowledged. Chunks wait in order for a sub-connection with room, are written there, and are
// released by that sub-connection's ACK; when one breaks, its unacknowledged chunks go back to
// the front of the queue for the others. A receiver's ACK is checked before it changes
// anything: counts that go backwards or exceed what was written, or frames never sent, are
// refused.
//   MtcpWindow window(frames, k, first_seq, [&](const Frame& f) { counters.add_frame(...); });
//   window.submit(frame, chunk_bytes);  window.assign(loads, room_bytes);
//   window.take_unwritten(sub, 32, [&](const EncodedChunk& c) { gather(c); });
//   if (auto why = window.on_ack(sub, ack)) break_subconnection(*why);
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <boost/circular_buffer.hpp>

#include "protocol/ack.hpp"
#include "protocol/frame.hpp"
#include "protocol/packetizer.hpp"
#include "transport/mtcp/mtcp_scheduler.hpp"

namespace hdstream {

class MtcpWindow {
 public:
  // Called once per frame that leaves the window: every chunk acknowledged, or the receiver has
  // delivered or given it up.
  using FrameDone = std::function<void(const Frame& frame)>;

  MtcpWindow(std::size_t max_frames, std::size_t subconnections, std::uint64_t first_frame_seq,
             FrameDone done);
  ~MtcpWindow();
  MtcpWindow(const MtcpWindow&) = delete;
  MtcpWindow& operator=(const MtcpWindow&) = delete;

  std::size_t frames() const { return window_.size(); }  // not yet fully acknowledged
  bool empty() const { return window_.empty(); }
  bool full() const { return window_.full() || free_entries_.empty(); }
  bool has_pending() const { return !pending_.empty(); }  // chunks waiting for assign()

  // Packetizes `frame`; its chunks wait for a sub-connection. false (frame not taken): full.
  // Throws what packetize() throws.
  bool submit(FramePtr frame, std::uint32_t chunk_bytes);

  // Hands waiting chunks, in order, to sub-connections with room (pick_subconnection). `loads`
  // has one entry per sub-connection with `usable` and `kernel_unsent_bytes` filled in; the
  // queued bytes are the window's own. Returns a bit per sub-connection that was given chunks.
  std::uint32_t assign(std::span<SubconnectionLoad> loads, std::uint64_t room_bytes);

  // Up to `max_chunks` of the chunks assigned to `sub` and not yet written, in order, each
  // passed to `visit(const EncodedChunk&)`; they count as written from now on (their ACK may
  // overtake the write's completion). Returns their payload bytes.
  template <typename Visit>
  std::uint64_t take_unwritten(std::size_t sub, std::size_t max_chunks, Visit&& visit);
  bool has_unwritten(std::size_t sub) const {
    return subs_[sub].written < subs_[sub].assigned.size();
  }
  std::uint64_t queued_bytes(std::size_t sub) const { return subs_[sub].queued_bytes; }

  // A receiver's ACK for `sub`. nullopt: applied (chunks released, frames done). Otherwise why
  // it was refused; nothing changed. A receiver that misbehaves like this is a protocol error.
  std::optional<std::string> on_ack(std::size_t sub, const Ack& ack);

  // `sub` broke: its chunks not acknowledged go back to the front of the queue, in order.
  // Returns how many of them had been written (they will be sent again).
  std::size_t requeue(std::size_t sub);
  // `sub` (re-)connected: a new count of chunks received starts at 0.
  void reopen(std::size_t sub);

  // Every frame below this was delivered or given up by the receiver.
  std::uint64_t delivered_seq() const { return delivered_seq_; }
  // One past the newest frame with a chunk written: a receiver cannot know of anything beyond.
  std::uint64_t sent_end_seq() const { return sent_end_seq_; }

 private:
  struct FrameEntry {
    FramePtr frame;
    std::vector<EncodedChunk> chunks;
    std::size_t unacked = 0;
  };
  struct ChunkRef {
    FrameEntry* entry = nullptr;
    std::uint16_t index = 0;
    std::size_t bytes() const { return kHeaderBytes + entry->chunks[index].payload.size(); }
  };
  struct Sub {
    // Chunks assigned here in write order: the first `written` were handed to the socket and
    // await their ACK, the rest wait to be written.
    boost::circular_buffer<ChunkRef> assigned;
    std::size_t written = 0;
    std::uint64_t queued_bytes = 0;  // bytes of the unwritten ones
    std::uint64_t acked_chunks = 0;  // the receiver's count for this connection
  };

  void release_done();

  FrameDone done_;
  // Frames not yet fully acknowledged, oldest first.
  boost::circular_buffer<FrameEntry*> window_;
  std::vector<std::unique_ptr<FrameEntry>> entries_;  // owns every entry: no allocation per frame
  std::vector<FrameEntry*> free_entries_;
  // Chunks waiting for a sub-connection with room (new ones, and re-sends at the front).
  boost::circular_buffer<ChunkRef> pending_;
  std::vector<Sub> subs_;
  std::uint64_t delivered_seq_ = 0;
  std::uint64_t sent_end_seq_ = 0;
};

template <typename Visit>
std::uint64_t MtcpWindow::take_unwritten(std::size_t sub_index, std::size_t max_chunks,
                                         Visit&& visit) {
  Sub& sub = subs_[sub_index];
  std::uint64_t bytes = 0, payload_bytes = 0;
  std::size_t count = 0;
  for (std::size_t i = sub.written; i < sub.assigned.size() && count < max_chunks; ++i, ++count) {
    const ChunkRef& ref = sub.assigned[i];
    const EncodedChunk& chunk = ref.entry->chunks[ref.index];
    visit(chunk);
    bytes += ref.bytes();
    payload_bytes += chunk.payload.size();
    if (ref.entry->frame->seq >= sent_end_seq_) sent_end_seq_ = ref.entry->frame->seq + 1;
  }
  sub.written += count;
  sub.queued_bytes -= bytes;
  return payload_bytes;
}

}  // namespace hdstream
