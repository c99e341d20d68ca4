#include "transport/mtcp/mtcp_receiver.hpp"

#include <algorithm>

#include "common/log.hpp"
#include "common/provenance.hpp"
#include "transport/capacity_probe.hpp"
#include "transport/mtcp/mtcp_group.hpp"
#include "transport/server_handshake.hpp"

namespace hdstream {

// An accepted connection until its HELLO has put it into a group (or refused it).
class MultiTcpReceiver::PendingConnection : public TcpSession {
 public:
  PendingConnection(std::shared_ptr<MultiTcpReceiver> owner, tcp::socket socket)
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
      admission_(options_, stats, consumer, 8 * options_.streams + 8, "mtcp"),
      listener_(
          std::make_shared<TcpListener>(context, "mtcp", feed_listener_options(options_.streams))),
      groups_(options_.streams) {
  for (std::size_t i = 0; i < options_.streams * kMaxLegs; ++i)
    strands_.push_back(asio::make_strand(context_));
}

MultiTcpReceiver::~MultiTcpReceiver() = default;

void MultiTcpReceiver::start() {
  listen_for_feeds(listener_->acceptor(), options_.listen, options_.streams,
                   options_.key.has_value(), "mtcp");
  listener_->start([self = shared_from_this()](tcp::socket socket) {
    return std::make_shared<PendingConnection>(self, std::move(socket));
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
  std::variant<std::shared_ptr<Group>, Admission::Refusal> joined;
  {
    std::lock_guard lock(mutex_);
    if (stopped_) co_return;
    joined = join(stream, hello, peer);
  }
  if (auto* refused = std::get_if<Admission::Refusal>(&joined)) {
    const RefusalLog log = refused->logged ? RefusalLog::none
                           : options_.key  ? RefusalLog::proven
                                           : RefusalLog::stranger;
    co_await send_hello_ack(*socket, stream, refused->status, std::move(refused->reason), peer,
                            "mtcp", log);
    co_return;
  }
  const auto group = std::get<std::shared_ptr<Group>>(joined);
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

// A feed's sub-connections join its leg's group (same session id); a probe's join its own group,
// never the feed's, on a strand of its own, so it neither waits for nor holds up the feed on its
// stream id.
std::variant<std::shared_ptr<MultiTcpReceiver::Group>, Admission::Refusal> MultiTcpReceiver::join(
    std::uint16_t stream, const Hello& hello, const std::string& peer) {
  const bool probe = is_capacity_probe(hello);
  std::shared_ptr<Group> existing;
  if (probe) {
    auto found = std::find_if(probes_.begin(), probes_.end(), [&](const auto& group) {
      return group->stream() == stream && group->session_id() == hello.session_id;
    });
    if (found != probes_.end()) existing = *found;
  } else if (stream < groups_.size()) {
    existing = groups_[stream][hello.leg];
    if (existing && existing->session_id() != hello.session_id) {
      return Admission::Refusal{AckStatus::stream_busy,
                                "another sender session is already connected"};
    }
  }
  if (existing && existing->connections() != hello.connections) {
    return Admission::Refusal{AckStatus::bad_request,
                              fmt::format("this session has {} sub-connections, not {}",
                                          existing->connections(), hello.connections)};
  }
  if (existing) return existing;
  // A new session: its place, then what its frames may need with all its sub-connections.
  auto admitted = admission_.admit(stream, hello, Group::reassembler_config(hello, options_),
                                   /*readers=*/hello.connections, peer);
  if (auto* refused = std::get_if<Admission::Refusal>(&admitted)) return std::move(*refused);
  auto group = std::make_shared<Group>(
      shared_from_this(), stream, hello, std::move(std::get<Admission::Session>(admitted)),
      probe ? asio::make_strand(context_) : strands_[stream * kMaxLegs + hello.leg], peer);
  (probe ? probes_.emplace_back() : groups_[stream][hello.leg]) = group;
  asio::post(group->strand(), [group] { group->start(); });
  return group;
}

void MultiTcpReceiver::group_ended(std::uint16_t stream, std::uint8_t leg, const Group* group,
                                   Admission::Session& admitted) {
  std::lock_guard lock(mutex_);
  admitted.release();
  if (group->probe()) {
    std::erase_if(probes_, [&](const auto& probe) { return probe.get() == group; });
  } else if (groups_[stream][leg].get() == group) {
    groups_[stream][leg].reset();
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
