#include "transport/mtcp/mtcp_window.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace hdstream {
namespace {
// Grows a ring buffer when full: rare (the first burst after a break), never per chunk.
template <typename T>
void push_back_growing(boost::circular_buffer<T>& ring, const T& value) {
  if (ring.full()) ring.set_capacity(std::max<std::size_t>(64, 2 * ring.capacity()));
  ring.push_back(value);
}
template <typename T>
void push_front_growing(boost::circular_buffer<T>& ring, const T& value) {
  if (ring.full()) ring.set_capacity(std::max<std::size_t>(64, 2 * ring.capacity()));
  ring.push_front(value);
}
}  // namespace

MtcpWindow::MtcpWindow(std::size_t max_frames, std::size_t subconnections,
                       std::uint64_t first_frame_seq, FrameDone done)
    : done_(std::move(done)),
      window_(max_frames),
      pending_(1024),
      subs_(subconnections),
      sent_end_seq_(first_frame_seq) {
  for (std::size_t i = 0; i < max_frames; ++i) {
    entries_.push_back(std::make_unique<FrameEntry>());
    free_entries_.push_back(entries_.back().get());
  }
  for (Sub& sub : subs_) sub.assigned.set_capacity(256);
}

MtcpWindow::~MtcpWindow() = default;

bool MtcpWindow::submit(FramePtr frame, std::uint32_t chunk_bytes) {
  if (full()) return false;
  FrameEntry* entry = free_entries_.back();
  packetize(*frame, chunk_bytes, entry->chunks);
  free_entries_.pop_back();
  entry->frame = std::move(frame);
  entry->unacked = entry->chunks.size();
  window_.push_back(entry);
  for (std::size_t i = 0; i < entry->chunks.size(); ++i) {
    push_back_growing(pending_, ChunkRef{entry, static_cast<std::uint16_t>(i)});
  }
  return true;
}

std::uint32_t MtcpWindow::assign(std::span<SubconnectionLoad> loads, std::uint64_t room_bytes) {
  if (pending_.empty()) return 0;
  for (std::size_t i = 0; i < loads.size() && i < subs_.size(); ++i) {
    loads[i].queued_bytes = subs_[i].queued_bytes;
  }
  std::uint32_t given = 0;
  bool released = false;
  while (!pending_.empty()) {
    const ChunkRef ref = pending_.front();
    if (ref.entry->frame->seq < delivered_seq_) {
      // The receiver has delivered or given up this frame: a (re-)send is pointless.
      pending_.pop_front();
      --ref.entry->unacked;
      released = true;
      continue;
    }
    const auto pick = pick_subconnection(loads, room_bytes);
    if (!pick || *pick >= subs_.size()) break;
    pending_.pop_front();
    Sub& sub = subs_[*pick];
    push_back_growing(sub.assigned, ref);
    sub.queued_bytes += ref.bytes();
    loads[*pick].queued_bytes += ref.bytes();
    given |= std::uint32_t{1} << *pick;
  }
  if (released) release_done();
  return given;
}

std::optional<std::string> MtcpWindow::on_ack(std::size_t sub_index, const Ack& ack) {
  if (sub_index >= subs_.size()) {
    return fmt::format("ACK for sub-connection {} of {}", sub_index, subs_.size());
  }
  Sub& sub = subs_[sub_index];
  if (ack.chunks_received < sub.acked_chunks ||
      ack.chunks_received - sub.acked_chunks > sub.written) {
    return fmt::format("ACK for {} chunks, but {} were acknowledged and {} more written",
                       ack.chunks_received, sub.acked_chunks, sub.written);
  }
  // A receiver can only have delivered or given up frames it has seen a chunk of; believing
  // more would drop queued chunks unsent and count their frames as sent.
  if (ack.next_frame_seq > sent_end_seq_) {
    return fmt::format("ACK for frames up to {}, but only frames below {} were sent",
                       ack.next_frame_seq, sent_end_seq_);
  }
  for (std::uint64_t n = ack.chunks_received - sub.acked_chunks; n > 0; --n) {
    --sub.assigned.front().entry->unacked;
    sub.assigned.pop_front();
    --sub.written;
  }
  sub.acked_chunks = ack.chunks_received;
  delivered_seq_ = std::max(delivered_seq_, ack.next_frame_seq);
  release_done();
  return std::nullopt;
}

std::size_t MtcpWindow::requeue(std::size_t sub_index) {
  Sub& sub = subs_[sub_index];
  const std::size_t resent = sub.written;
  for (auto it = sub.assigned.rbegin(); it != sub.assigned.rend(); ++it) {
    push_front_growing(pending_, *it);
  }
  sub.assigned.clear();
  sub.written = 0;
  sub.queued_bytes = 0;
  return resent;
}

void MtcpWindow::reopen(std::size_t sub_index) {
  requeue(sub_index);  // nothing, unless it was never marked broken
  subs_[sub_index].acked_chunks = 0;
}

void MtcpWindow::release_done() {
  while (!window_.empty() && window_.front()->unacked == 0) {
    FrameEntry* entry = window_.front();
    window_.pop_front();
    if (done_) done_(*entry->frame);
    entry->frame.reset();
    free_entries_.push_back(entry);
  }
}

}  // namespace hdstream
