#include "transport/mtcp/mtcp_receiver.hpp"

#include <algorithm>

#include "common/log.hpp"
#include "common/provenance.hpp"
#include "transport/capacity_probe.hpp"
#include "transport/mtcp/mtcp_group.hpp"
#include "transport/server_handshake.hpp"

namespace hdstream {

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
      merge_(consumer, stats, {.streams = options_.streams, .skew = options_.skew}),
      listener_(
          std::make_shared<TcpListener>(context, "mtcp", feed_listener_options(options_.streams))),
      memory_(options_.max_memory_bytes, options_.streams, 8 * options_.streams + 8, "mtcp"),
      probe_memory_(options_.max_memory_bytes, options_.streams, 2, "mtcp"),
      groups_(options_.streams) {
  for (std::size_t i = 0; i < options_.streams * kMaxLegs; ++i)
    strands_.push_back(asio::make_strand(context_));
}

MultiTcpReceiver::~MultiTcpReceiver() = default;

void MultiTcpReceiver::start() {
  listen_for_feeds(listener_->acceptor(), options_.listen, options_.streams,
                   options_.key.has_value(), "mtcp");
  listener_->start([self = shared_from_this()](tcp::socket socket) {
    return std::make_shared<Admission>(self, std::move(socket));
  });
}

Endpoint MultiTcpReceiver::local_endpoint() const {
  return listener_->local_endpoint();
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
    } else {
      group = admit_feed(stream, hello, peer, status, reason, logged);
    }
  }
  if (status != AckStatus::accepted) {
    const RefusalLog log = logged         ? RefusalLog::none
                           : options_.key ? RefusalLog::proven
                                          : RefusalLog::stranger;
    co_await send_hello_ack(*socket, stream, status, std::move(reason), peer, "mtcp", log);
    co_return;
  }
  if (!co_await send_hello_ack(*socket, stream, AckStatus::accepted, receiver_identity(), peer,
                               "mtcp"))
    co_return;
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

std::shared_ptr<MultiTcpReceiver::Group> MultiTcpReceiver::admit_feed(
    std::uint16_t stream, const Hello& hello, const std::string& peer, AckStatus& status,
    std::string& reason, bool& logged) {
  const std::shared_ptr<Group>& existing = groups_[stream][hello.leg];
  if (existing && existing->session_id() != hello.session_id) {
    status = AckStatus::stream_busy;
    reason = "another sender session is already connected";
    return nullptr;
  }
  if (existing && existing->connections() != hello.connections) {
    status = AckStatus::bad_request;
    reason = fmt::format("this session has {} sub-connections, not {}", existing->connections(),
                         hello.connections);
    return nullptr;
  }
  if (existing) return existing;
  // A new session: its leg's place on the stream, then, for all its sub-connections, what its
  // frames (and the merge's, for a protected feed) may need.
  if (status = merge_.claim(stream, hello, reason); status != AckStatus::accepted) return nullptr;
  auto memory =
      memory_.admit(merge_.reserved_config(hello, Group::reassembler_config(hello, options_)),
                    /*readers=*/hello.connections, peer, stream, reason, hello.legs);
  if (!memory) {
    merge_.release(stream, hello.leg);
    status = AckStatus::bad_request;
    logged = true;
    return nullptr;
  }
  auto group = std::make_shared<Group>(shared_from_this(), stream, hello, std::move(*memory),
                                       strands_[stream * kMaxLegs + hello.leg], peer);
  groups_[stream][hello.leg] = group;
  asio::post(group->strand(), [group] { group->start(); });
  return group;
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
  auto memory = probe_memory_.admit(Group::reassembler_config(hello, options_),
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

void MultiTcpReceiver::group_ended(std::uint16_t stream, std::uint8_t leg, const Group* group) {
  std::lock_guard lock(mutex_);
  if (group->probe()) {
    std::erase_if(probes_, [&](const auto& probe) { return probe.get() == group; });
  } else if (groups_[stream][leg].get() == group) {
    groups_[stream][leg].reset();
    merge_.release(stream, leg);
  }
}

void MultiTcpReceiver::stop() {
  std::vector<std::shared_ptr<Group>> groups;
  {
    std::lock_guard lock(mutex_);
    stopped_ = true;
    for (auto& legs : groups_) {
      for (auto& group : legs) {
        if (group) groups.push_back(group);
      }
    }
    groups.insert(groups.end(), probes_.begin(), probes_.end());
  }
  listener_->stop();  // the acceptor and every connection not yet in a group
  for (auto& group : groups) group->close();
}

}  // namespace hdstream
