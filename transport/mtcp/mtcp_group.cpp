#include "transport/mtcp/mtcp_group.hpp"

#include <algorithm>

#include "common/clock.hpp"
#include "common/log.hpp"
#include "common/units.hpp"
#include "transport/message_io.hpp"
#include "transport/mtcp/mtcp_scheduler.hpp"

namespace hdstream {
namespace {
std::shared_ptr<spdlog::logger> log() {
  return logger("mtcp");
}

// How long a feed whose sub-connections are all down waits for the sender to re-establish one.
constexpr auto kRejoinPatience = std::chrono::seconds(10);
constexpr auto kTick = std::chrono::milliseconds(10);
}  // namespace

ReassemblerConfig MultiTcpReceiver::Group::reassembler_config(const Hello& hello,
                                                              const ReceiverOptions& options) {
  ReassemblerConfig config = hdstream::reassembler_config(hello);
  config.latency_budget_ns = std::int64_t{hello.latency_budget_ms} * 1'000'000;
  config.max_frames_in_flight =
      std::max(options.max_frames_in_flight,
               mtcp_window_frames(hello.latency_budget_ms, hello.feed.frames_per_second()));
  return config;
}

MultiTcpReceiver::Group::Group(std::shared_ptr<MultiTcpReceiver> owner, std::uint16_t stream,
                               const Hello& hello, Admission::Session admitted,
                               asio::strand<asio::io_context::executor_type> strand,
                               const std::string& peer)
    : owner_(std::move(owner)),
      strand_(std::move(strand)),
      stream_(stream),
      hello_(hello),
      peer_(peer),
      probe_(admitted.probe()),
      admitted_(std::move(admitted)),
      counters_(admitted_.counters()),
      reassembler_(stream, reassembler_config(hello, owner_->options_), admitted_.memory().pool()),
      members_(hello.connections),
      publisher_(log(), stream,
                 fmt::format("given up (missing beyond the {} ms latency budget)",
                             hello.latency_budget_ms)) {}

void MultiTcpReceiver::Group::start() {
  counters_.striped.present.store(true, std::memory_order_relaxed);
  for (std::size_t i = 0; i < members_.size(); ++i) {
    counters_.striped.subconnections[i].state.store(StreamState::waiting, std::memory_order_relaxed);
  }
  down_since_ = std::chrono::steady_clock::now();
  admitted_.started(hello_, fmt::format("over {} sub-connections, latency budget {} ms",
                                        hello_.connections, hello_.latency_budget_ms));
  asio::co_spawn(
      strand_, [self = shared_from_this()] { return self->ticker(); }, asio::detached);
}

void MultiTcpReceiver::Group::attach(std::uint8_t index, std::shared_ptr<tcp::socket> socket,
                                     std::string peer) {
  if (ended_) {
    boost::system::error_code ignored;
    socket->close(ignored);
    return;
  }
  Member& member = members_[index];
  if (member.socket) {
    boost::system::error_code ignored;
    member.socket->close(ignored);  // a stale one the sender has already given up
  }
  const bool rejoined = member.generation > 0;
  member.socket = std::move(socket);
  member.peer = std::move(peer);
  ++member.generation;
  member.up = true;
  member.chunks_received = 0;
  member.writing = false;
  member.ack_wanted = false;
  member.feedback_wanted = false;
  auto& sub_counters = counters_.striped.subconnections[index];
  sub_counters.state.store(StreamState::running, std::memory_order_relaxed);
  if (const std::int64_t outage_ns = counters_.outage.end(
          wall_clock_ns(), std::chrono::milliseconds(hello_.latency_budget_ms));
      outage_ns > 0) {
    log()->info("stream {}: the sender is back after {:.1f} s without a sub-connection", stream_,
                static_cast<double>(outage_ns) / 1e9);
  }
  if (rejoined) {
    sub_counters.reconnects.fetch_add(1, std::memory_order_relaxed);
    log()->info("stream {} sub-connection {}: re-established from {}", stream_, index, member.peer);
  }
  asio::co_spawn(
      strand_,
      [self = shared_from_this(), index, generation = member.generation] {
        return self->read_loop(index, generation);
      },
      asio::detached);
}

awaitable<void> MultiTcpReceiver::Group::read_loop(std::uint8_t index, std::uint64_t generation) {
  auto self = shared_from_this();
  Member& member = members_[index];
  auto socket = member.socket;
  auto& sub_counters = counters_.striped.subconnections[index];
  MessageReader reader;
  for (;;) {
    auto read = co_await reader.read_header(*socket);
    if (ended_ || member.generation != generation) co_return;
    if (read.error) {
      const std::string why = read.detail != HeaderError::none ? std::string(to_string(read.detail))
                                                               : read.error.message();
      member_lost(index, generation, why);
      co_return;
    }
    const MessageHeader& header = read.header;
    if (header.type == MessageType::chunk) {
      auto slot = reassembler_.begin_chunk(header, wall_clock_ns());
      if (slot.result == ChunkResult::too_large) {
        admitted_.memory().frame_too_large(member.peer, stream_, header,
                                           reassembler_config(hello_, owner_->options_));
        end_session(false, /*stopping=*/true);  // gives the frames in flight up
        co_return;
      }
      error_code ec;
      if (slot.result == ChunkResult::accepted) {
        ec = co_await reader.read_payload(*socket, slot.destination);
        // A payload cut short never arrives: free its place for the copy re-sent elsewhere.
        if (ec) {
          reassembler_.abort_chunk(header);
        } else if (!ended_) {
          reassembler_.commit_chunk(header, wall_clock_ns());
        }
      } else {
        ec = co_await discard(*socket, header.payload_bytes, scratch_);
      }
      if (ended_ || member.generation != generation) co_return;
      if (ec) {
        const std::string why = ec.message();
        member_lost(index, generation, why);
        co_return;
      }
      ++member.chunks_received;
      sub_counters.bytes.fetch_add(header.payload_bytes, std::memory_order_relaxed);
      send_ack(index);
      deliver(wall_clock_ns());
      continue;
    }
    auto body_read = co_await read_control_body(*socket, header, body_);
    if (ended_ || member.generation != generation) co_return;
    if (body_read.error) {
      const std::string why = body_read.error.message();
      member_lost(index, generation, why);
      co_return;
    }
    if (header.type == MessageType::end) {
      auto end = body_read.checksum_ok ? decode_end(body_) : std::nullopt;
      if (!end) {
        member_lost(index, generation, "malformed END");
        co_return;
      }
      reassembler_.finish(end->frames_sent);
      deliver(wall_clock_ns());
      // The sender learns the final counts before the session closes (docs/PROTOCOL.md).
      ending_ = true;
      send_feedback(/*last=*/true);
      co_return;
    }
    member_lost(index, generation,
                fmt::format("unexpected message type {}", static_cast<int>(header.type)));
    co_return;
  }
}

void MultiTcpReceiver::Group::send_ack(std::uint8_t index) {
  // One ACK in flight per sub-connection; whatever arrives meanwhile is covered by the next,
  // so the rate of ACKs adapts to the path by itself.
  members_[index].ack_wanted = true;
  pump(index);
}

void MultiTcpReceiver::Group::send_feedback(bool last) {
  // Reports go on the lowest sub-connection that is up; the sender reads every one of them.
  auto member =
      std::find_if(members_.begin(), members_.end(), [](const Member& m) { return m.up; });
  if (member == members_.end()) {
    if (last) end_session(true);
    return;
  }
  const auto index = static_cast<std::uint8_t>(member - members_.begin());
  if (last) {
    final_member_ = index;
    ending_deadline_ = std::chrono::steady_clock::now() + owner_->options_.handshake_timeout;
  }
  member->feedback =
      encode_feedback(stream_, feedback_meter_.take(counters_, wall_clock_ns()), last);
  member->feedback_wanted = true;
  pump(index);
}

void MultiTcpReceiver::Group::pump(std::uint8_t index) {
  Member& member = members_[index];
  if (member.writing || !member.up || ended_) return;
  asio::const_buffer message;
  if (member.ack_wanted && !ending_) {
    member.ack_wanted = false;
    encode_ack(stream_, Ack{reassembler_.next_seq(), member.chunks_received, index}, member.ack);
    message = asio::buffer(member.ack);
  } else if (member.feedback_wanted) {
    member.feedback_wanted = false;
    std::swap(member.feedback, member.feedback_out);
    message = asio::buffer(member.feedback_out);
  } else {
    if (ending_ && index == final_member_) end_session(true);  // the last report is out
    return;
  }
  member.writing = true;
  asio::async_write(*member.socket, message,
                    asio::bind_executor(
                        strand_, [self = shared_from_this(), index, generation = member.generation](
                                     boost::system::error_code ec, std::size_t) {
                          Member& m = self->members_[index];
                          if (m.generation != generation) return;
                          m.writing = false;
                          if (ec) {
                            if (self->ending_ && index == self->final_member_)
                              self->end_session(true);
                            return;
                          }
                          self->pump(index);
                        }));
}

void MultiTcpReceiver::Group::member_lost(std::uint8_t index, std::uint64_t generation,
                                          const std::string& why) {
  Member& member = members_[index];
  if (member.generation != generation || !member.up) return;
  member.up = false;
  boost::system::error_code ignored;
  member.socket->close(ignored);
  if (ending_ && index == final_member_) {
    end_session(true);  // everything arrived; only the last report is lost
    return;
  }
  counters_.striped.subconnections[index].state.store(StreamState::waiting, std::memory_order_relaxed);
  log()->warn(
      "stream {} sub-connection {} from {} lost: {}; waiting for the sender to "
      "re-establish it",
      stream_, index, member.peer, why);
  if (std::none_of(members_.begin(), members_.end(), [](const Member& m) { return m.up; })) {
    down_since_ = std::chrono::steady_clock::now();
    counters_.outage.begin(wall_clock_ns());
  }
}

void MultiTcpReceiver::Group::deliver(std::int64_t now_ns) {
  deliver_ready_frames(reassembler_, now_ns, admitted_.capacity_probe(), admitted_.consumer(),
                       stream_, publisher_, counters_);
  counters_.striped.duplicate_chunks.store(reassembler_.counters().duplicate_chunks,
                                        std::memory_order_relaxed);
}

void MultiTcpReceiver::Group::sample_tcp_info() {
  const std::int64_t now = wall_clock_ns();
  if (now < next_info_ns_) return;
  next_info_ns_ = now + 250'000'000;
  double rtt_sum = 0;
  std::size_t rtt_count = 0;
  for (std::size_t i = 0; i < members_.size(); ++i) {
    if (!members_[i].up) continue;
    if (auto info = read_tcp_info(members_[i].socket->native_handle())) {
      counters_.striped.subconnections[i].rtt_ms.store(info->rtt_ms, std::memory_order_relaxed);
      rtt_sum += info->rtt_ms;
      ++rtt_count;
    }
  }
  if (rtt_count > 0) counters_.rtt_ms.store(rtt_sum / rtt_count, std::memory_order_relaxed);
}

awaitable<void> MultiTcpReceiver::Group::ticker() {
  auto self = shared_from_this();
  asio::steady_timer timer(strand_);
  while (!ended_) {
    timer.expires_after(kTick);
    error_code ignored;
    co_await timer.async_wait(nothrow(ignored));
    if (ended_) break;
    // Frames held back for a gap are given up here when no chunk arrives to do it.
    deliver(wall_clock_ns());
    sample_tcp_info();
    if (const std::int64_t now = wall_clock_ns(); now >= next_feedback_ns_ && !ending_) {
      next_feedback_ns_ = now + std::chrono::nanoseconds(kFeedbackInterval).count();
      send_feedback(/*last=*/false);
    }
    if (ending_ && std::chrono::steady_clock::now() > ending_deadline_) {
      log()->warn("stream {}: the sender did not read the last report; ending the session",
                  stream_);
      end_session(true);
      break;
    }
    const bool all_down =
        std::none_of(members_.begin(), members_.end(), [](const Member& m) { return m.up; });
    if (all_down && std::chrono::steady_clock::now() - down_since_ > kRejoinPatience) {
      log()->warn("stream {}: no sub-connection for {} s; ending the session", stream_,
                  kRejoinPatience.count());
      reassembler_.abandon();
      deliver(wall_clock_ns());
      end_session(false);
    }
  }
}

void MultiTcpReceiver::Group::end_session(bool clean, bool stopping) {
  if (ended_) return;
  ended_ = true;
  if (stopping) {
    reassembler_.abandon();
    deliver(wall_clock_ns());
  }
  for (std::size_t i = 0; i < members_.size(); ++i) {
    Member& member = members_[i];
    if (member.socket) {
      boost::system::error_code ignored;
      member.socket->shutdown(tcp::socket::shutdown_both, ignored);
      member.socket->close(ignored);
    }
    member.up = false;
    counters_.striped.subconnections[i].state.store(
        clean ? StreamState::finished : StreamState::failed, std::memory_order_relaxed);
  }
  admitted_.ended(clean, reassembler_.next_seq());
  owner_->group_ended(stream_, hello_.leg, this, admitted_);
}

}  // namespace hdstream
