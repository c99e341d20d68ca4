#include "transport/mtcp_receiver.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "common/clock.hpp"
#include "common/log.hpp"
#include "common/units.hpp"
#include "protocol/ack.hpp"
#include "protocol/reassembler.hpp"
#include "transport/capacity_probe.hpp"
#include "transport/feedback.hpp"
#include "transport/message_io.hpp"
#include "transport/mtcp_scheduler.hpp"
#include "transport/reassembly_publisher.hpp"
#include "transport/server_handshake.hpp"

namespace hdstream {
namespace {
std::shared_ptr<spdlog::logger> log() {
  return logger("mtcp");
}

// How long a feed whose sub-connections are all down waits for the sender to re-establish one.
constexpr auto kRejoinPatience = std::chrono::seconds(10);
constexpr auto kTick = std::chrono::milliseconds(10);
}  // namespace

// One mtcp feed: its K sub-connections, its reassembler, its acknowledgements. Runs on the
// stream's strand. A capacity probe is a group too, on a strand of its own, counted apart.
class MultiTcpReceiver::Group : public std::enable_shared_from_this<Group> {
 public:
  // `memory`: the reservation covering reassembler_config(hello, ...) (see admit()).
  Group(std::shared_ptr<MultiTcpReceiver> owner, std::uint16_t stream, const Hello& hello,
        MemoryReservation memory, asio::strand<asio::io_context::executor_type> strand,
        const std::string& peer)
      : owner_(std::move(owner)),
        strand_(std::move(strand)),
        stream_(stream),
        hello_(hello),
        probe_(is_capacity_probe(hello) ? std::make_unique<CapacityProbe>(log(), stream, peer)
                                        : nullptr),
        counters_(probe_ ? probe_->counters() : owner_->stats_.stream(stream)),
        memory_(std::move(memory)),
        reassembler_(stream, reassembler_config(hello, owner_->options_), owner_->memory_.pool()),
        members_(hello.connections),
        publisher_(log(), stream,
                   fmt::format("given up (missing beyond the {} ms latency budget)",
                               hello.latency_budget_ms)) {}

  std::uint64_t session_id() const { return hello_.session_id; }
  std::uint8_t connections() const { return hello_.connections; }
  std::uint16_t stream() const { return stream_; }
  bool probe() const { return probe_ != nullptr; }
  const asio::strand<asio::io_context::executor_type>& strand() const { return strand_; }

  void start() {
    if (probe_) {
      probe_->started(hello_, fmt::format("over {} sub-connections", hello_.connections));
    } else {
      log()->info(
          "stream {}: feed accepted over {} sub-connections ({} {}x{} @ {:.2f} fps, {}, "
          "latency budget {} ms)",
          stream_, hello_.connections, to_string(hello_.feed.codec), hello_.feed.width,
          hello_.feed.height, hello_.feed.frames_per_second(),
          format_rate(static_cast<double>(hello_.feed.bit_rate_bps)), hello_.latency_budget_ms);
    }
    counters_.planned_bps.store(hello_.feed.bit_rate_bps, std::memory_order_relaxed);
    counters_.state.store(StreamState::running, std::memory_order_relaxed);
    counters_.link.present.store(true, std::memory_order_relaxed);
    for (std::size_t i = 0; i < members_.size(); ++i) {
      counters_.subconnections[i].state.store(StreamState::waiting, std::memory_order_relaxed);
    }
    down_since_ = std::chrono::steady_clock::now();
    if (!probe_) owner_->consumer_.session_started(stream_, hello_);
    asio::co_spawn(
        strand_, [self = shared_from_this()] { return self->ticker(); }, asio::detached);
  }

  void attach(std::uint8_t index, std::shared_ptr<tcp::socket> socket, std::string peer) {
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
    auto& sub_counters = counters_.subconnections[index];
    sub_counters.state.store(StreamState::running, std::memory_order_relaxed);
    if (const std::int64_t outage_ns = counters_.outage.end(
            wall_clock_ns(), std::chrono::milliseconds(hello_.latency_budget_ms));
        outage_ns > 0) {
      log()->info("stream {}: the sender is back after {:.1f} s without a sub-connection", stream_,
                  static_cast<double>(outage_ns) / 1e9);
    }
    if (rejoined) {
      sub_counters.reconnects.fetch_add(1, std::memory_order_relaxed);
      log()->info("stream {} sub-connection {}: re-established from {}", stream_, index,
                  member.peer);
    }
    asio::co_spawn(
        strand_,
        [self = shared_from_this(), index, generation = member.generation] {
          return self->read_loop(index, generation);
        },
        asio::detached);
  }

  void close() {
    asio::post(strand_, [self = shared_from_this()] { self->end_session(false, true); });
  }

  // Bounds from the HELLO (protocol/reassembler.hpp); frames in flight: what the latency budget
  // holds back (the sender's resend window is the same size, see mtcp_window_frames).
  static ReassemblerConfig reassembler_config(const Hello& hello, const ReceiverOptions& options) {
    ReassemblerConfig config = hdstream::reassembler_config(hello);
    config.latency_budget_ns = std::int64_t{hello.latency_budget_ms} * 1'000'000;
    config.max_frames_in_flight =
        std::max(options.max_frames_in_flight,
                 mtcp_window_frames(hello.latency_budget_ms, hello.feed.frames_per_second()));
    return config;
  }

 private:
  struct Member {
    std::shared_ptr<tcp::socket> socket;
    std::string peer;
    std::uint64_t generation = 0;
    std::uint64_t chunks_received = 0;
    // Everything the receiver says on a sub-connection goes through pump(): one write in
    // flight at a time, an ACK before a FEEDBACK report.
    std::array<std::byte, kAckMessageBytes> ack{};
    std::vector<std::byte> feedback;      // the next report
    std::vector<std::byte> feedback_out;  // the report being written
    bool writing = false;
    bool ack_wanted = false;
    bool feedback_wanted = false;
    bool up = false;
  };

  awaitable<void> read_loop(std::uint8_t index, std::uint64_t generation);
  awaitable<void> ticker();
  void send_ack(std::uint8_t index);
  void send_feedback(bool last);
  void pump(std::uint8_t index);
  void member_lost(std::uint8_t index, std::uint64_t generation, const std::string& why);
  void deliver(std::int64_t now_ns);
  void sample_tcp_info();
  void end_session(bool clean, bool stopping = false);

  std::shared_ptr<MultiTcpReceiver> owner_;
  asio::strand<asio::io_context::executor_type> strand_;
  std::uint16_t stream_;
  Hello hello_;
  std::unique_ptr<CapacityProbe> probe_;  // set: a `check` capacity probe, not a feed
  StreamCounters& counters_;
  MemoryReservation memory_;
  Reassembler reassembler_;
  std::vector<Member> members_;
  ReassemblyPublisher publisher_;
  std::vector<std::byte> body_;
  std::vector<std::byte> scratch_;
  std::chrono::steady_clock::time_point down_since_;
  std::int64_t next_info_ns_ = 0;
  std::int64_t next_feedback_ns_ = 0;
  FeedbackMeter feedback_meter_;
  // END has arrived: the last FEEDBACK report is on its way on final_member_, then the
  // session ends (by ending_deadline_ at the latest, should the sender stop reading).
  bool ending_ = false;
  int final_member_ = -1;
  std::chrono::steady_clock::time_point ending_deadline_;
  bool ended_ = false;
};

awaitable<void> MultiTcpReceiver::Group::read_loop(std::uint8_t index, std::uint64_t generation) {
  auto self = shared_from_this();
  Member& member = members_[index];
  auto socket = member.socket;
  auto& sub_counters = counters_.subconnections[index];
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
        owner_->memory_.frame_too_large(member.peer, stream_, header,
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
  counters_.subconnections[index].state.store(StreamState::waiting, std::memory_order_relaxed);
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
  FrameConsumer& consumer = owner_->consumer_;
  while (FramePtr frame = reassembler_.pop(now_ns)) {
    if (probe_) {
      probe_->frame(*frame);
    } else {
      consumer.frame_received(stream_, std::move(frame));
    }
  }
  publisher_.publish(reassembler_.counters(), counters_);
  counters_.link.duplicate_chunks.store(reassembler_.counters().duplicate_chunks,
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
      counters_.subconnections[i].rtt_ms.store(info->rtt_ms, std::memory_order_relaxed);
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
    counters_.subconnections[i].state.store(clean ? StreamState::finished : StreamState::failed,
                                            std::memory_order_relaxed);
  }
  counters_.state.store(clean ? StreamState::finished : StreamState::failed,
                        std::memory_order_relaxed);
  memory_.reset();  // before the stream is free: its next session reserves afresh
  owner_->group_ended(stream_, this);
  if (probe_) {
    probe_->ended(clean);
  } else {
    owner_->consumer_.session_ended(stream_, clean, reassembler_.next_seq());
  }
}

// An accepted connection until its HELLO has put it into a group (or refused it).
class MultiTcpReceiver::Admission : public TcpSession {
 public:
  Admission(std::shared_ptr<MultiTcpReceiver> owner, tcp::socket socket)
      : owner_(std::move(owner)), socket_(std::make_shared<tcp::socket>(std::move(socket))) {}
  awaitable<void> run() override { return owner_->admit(socket_); }
  void close() override {
    asio::post(socket_->get_executor(), [socket = socket_] {
      boost::system::error_code ignored;
      socket->close(ignored);
    });
  }

 private:
  std::shared_ptr<MultiTcpReceiver> owner_;
  std::shared_ptr<tcp::socket> socket_;
};

MultiTcpReceiver::MultiTcpReceiver(asio::io_context& context, ReceiverOptions options,
                                   StatsRegistry& stats, FrameConsumer& consumer)
    : context_(context),
      options_(std::move(options)),
      stats_(stats),
      consumer_(consumer),
      listener_(std::make_shared<TcpListener>(context, "mtcp")),
      memory_(options_.max_memory_bytes, options_.streams, 8 * options_.streams + 8, "mtcp"),
      groups_(options_.streams) {
  for (std::size_t i = 0; i < options_.streams; ++i)
    strands_.push_back(asio::make_strand(context_));
}

MultiTcpReceiver::~MultiTcpReceiver() = default;

void MultiTcpReceiver::start() {
  open_listener(listener_->acceptor(), options_.listen);
  log()->info("listening on {} for {} mtcp stream(s)", local_endpoint().to_string(),
              options_.streams);
  warn_if_open_to_anyone(listener_->acceptor(), options_.key.has_value(), "mtcp");
  listener_->start([self = shared_from_this()](tcp::socket socket) {
    return std::make_shared<Admission>(self, std::move(socket));
  });
}

Endpoint MultiTcpReceiver::local_endpoint() const {
  auto endpoint = listener_->acceptor().local_endpoint();
  return Endpoint{endpoint.address().to_string(), endpoint.port()};
}

awaitable<void> MultiTcpReceiver::admit(std::shared_ptr<tcp::socket> socket) {
  const std::string peer = peer_name(*socket);
  auto intake = co_await read_hello(*socket, options_.handshake_timeout, peer, TransportKind::mtcp,
                                    "mtcp", options_.key);
  const std::uint16_t stream = intake.stream_id;
  if (!intake.hello) {
    if (intake.reply)
      co_await send_hello_ack(*socket, stream, intake.status, intake.reason, peer, "mtcp");
    co_return;
  }
  const Hello& hello = *intake.hello;
  AckStatus status = AckStatus::accepted;
  std::string reason;
  bool logged = false;  // a memory refusal is logged (rate-limited) by FrameMemory
  std::shared_ptr<Group> group;
  {
    std::lock_guard lock(mutex_);
    if (stopped_) co_return;
    if (stream >= groups_.size()) {
      status = AckStatus::bad_stream;
      reason = fmt::format("this receiver serves streams 0..{}", options_.streams - 1);
    } else if (is_capacity_probe(hello)) {
      group = admit_probe(stream, hello, peer, status, reason, logged);
    } else if (groups_[stream] && groups_[stream]->session_id() != hello.session_id) {
      status = AckStatus::stream_busy;
      reason = "another sender session is already connected";
    } else if (groups_[stream] && groups_[stream]->connections() != hello.connections) {
      status = AckStatus::bad_request;
      reason = fmt::format("this session has {} sub-connections, not {}",
                           groups_[stream]->connections(), hello.connections);
    } else if (groups_[stream]) {
      group = groups_[stream];
    } else if (auto memory = memory_.admit(Group::reassembler_config(hello, options_),
                                           /*readers=*/hello.connections, peer, stream, reason)) {
      // A new session: it reserves, for all its sub-connections, what its frames may need.
      group = std::make_shared<Group>(shared_from_this(), stream, hello, std::move(*memory),
                                      strands_[stream], peer);
      groups_[stream] = group;
      asio::post(strands_[stream], [group] { group->start(); });
    } else {
      status = AckStatus::bad_request;
      logged = true;
    }
  }
  if (status != AckStatus::accepted) {
    co_await send_hello_ack(*socket, stream, status, std::move(reason), peer, "mtcp", !logged);
    co_return;
  }
  if (!co_await send_hello_ack(*socket, stream, AckStatus::accepted, {}, peer, "mtcp")) co_return;
  // A silent path breaks the sub-connection once the sender has been silent this long.
  set_stall_timeout(socket->native_handle(),
                    stall_timeout(std::chrono::microseconds(hello.expected_rtt_us)));
  // Move the connection onto its stream's strand (see strands_).
  error_code ec;
  const auto protocol = socket->local_endpoint(ec).protocol();
  const auto fd = socket->release(ec);
  if (ec) co_return;
  auto moved = std::make_shared<tcp::socket>(group->strand(), protocol, fd);
  asio::post(group->strand(), [group, index = hello.subconnection, moved, peer] {
    group->attach(index, moved, peer);
  });
}

// A probe's sub-connections join its own group (same session id), never the feed's; it runs on
// a strand of its own, so it neither waits for nor holds up the feed on its stream id.
std::shared_ptr<MultiTcpReceiver::Group> MultiTcpReceiver::admit_probe(
    std::uint16_t stream, const Hello& hello, const std::string& peer, AckStatus& status,
    std::string& reason, bool& logged) {
  auto same_session = [&](const auto& group) {
    return group->stream() == stream && group->session_id() == hello.session_id;
  };
  if (auto found = std::find_if(probes_.begin(), probes_.end(), same_session);
      found != probes_.end()) {
    if ((*found)->connections() == hello.connections) return *found;
    status = AckStatus::bad_request;
    reason = fmt::format("this session has {} sub-connections, not {}", (*found)->connections(),
                         hello.connections);
    return nullptr;
  }
  if (probes_.size() >= max_capacity_probes(options_.streams)) {
    status = AckStatus::stream_busy;
    reason = capacity_probes_busy(max_capacity_probes(options_.streams));
    return nullptr;
  }
  auto memory = memory_.admit(Group::reassembler_config(hello, options_),
                              /*readers=*/hello.connections, peer, stream, reason);
  if (!memory) {
    status = AckStatus::bad_request;
    logged = true;
    return nullptr;
  }
  auto group = std::make_shared<Group>(shared_from_this(), stream, hello, std::move(*memory),
                                       asio::make_strand(context_), peer);
  probes_.push_back(group);
  asio::post(group->strand(), [group] { group->start(); });
  return group;
}

void MultiTcpReceiver::group_ended(std::uint16_t stream, const Group* group) {
  std::lock_guard lock(mutex_);
  if (group->probe()) {
    std::erase_if(probes_, [&](const auto& probe) { return probe.get() == group; });
  } else if (stream < groups_.size() && groups_[stream].get() == group) {
    groups_[stream].reset();
  }
}

void MultiTcpReceiver::stop() {
  std::vector<std::shared_ptr<Group>> groups;
  {
    std::lock_guard lock(mutex_);
    stopped_ = true;
    for (auto& group : groups_) {
      if (group) groups.push_back(group);
    }
    groups.insert(groups.end(), probes_.begin(), probes_.end());
  }
  listener_->stop();  // the acceptor and every connection not yet in a group
  for (auto& group : groups) group->close();
}

}  // namespace hdstream
