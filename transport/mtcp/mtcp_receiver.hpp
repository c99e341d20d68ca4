// Serves N mtcp feeds on one TCP listen address: each feed arrives as K sub-connections (one
// HELLO each, same session id), grouped into one reassembler that reorders within the latency
// budget; every chunk read is acknowledged on its own sub-connection. Each leg of a protected
// feed is a group of its own; LegMerge merges the legs' frames.
//   auto rx = std::make_shared<MultiTcpReceiver>(io, options, stats, consumer);  rx->start();
#pragma once

#include <array>
#include <memory>
#include <mutex>
#include <vector>

#include <variant>

#include "common/tcp_listener.hpp"
#include "transport/admission.hpp"
#include "transport/transport.hpp"

namespace hdstream {

class MultiTcpReceiver : public ReceiverTransport,
                         public std::enable_shared_from_this<MultiTcpReceiver> {
 public:
  MultiTcpReceiver(asio::io_context& context, ReceiverOptions options, StatsRegistry& stats,
                   FrameConsumer& consumer);
  ~MultiTcpReceiver() override;

  void start() override;
  Endpoint local_endpoint() const override;
  void stop() override;

 private:
  class Group;
  friend class Group;
  class PendingConnection;

  awaitable<void> admit(std::shared_ptr<tcp::socket> socket);
  // Under mutex_: the group `hello` belongs to (a feed's leg, or a capacity probe), joined or
  // new; a refusal otherwise.
  std::variant<std::shared_ptr<Group>, Admission::Refusal> join(std::uint16_t stream,
                                                                const Hello& hello,
                                                                const std::string& peer);
  // After the group's session_ended: frees its place (`admitted`) and its claim on the stream,
  // under mutex_ so that a new session of the stream finds both free.
  void group_ended(std::uint16_t stream, std::uint8_t leg, const Group* group,
                   Admission::Session& admitted);

  asio::io_context& context_;
  ReceiverOptions options_;
  Admission admission_;  // what a HELLO may claim and reserve; the merge of protected feeds
  std::shared_ptr<TcpListener> listener_;  // accepts; its sessions are connections in admit()
  // One strand per stream and leg: every sub-connection of a feed's leg runs on it, so they
  // share one reassembler without locks and the merge sees one caller per stream and leg.
  std::vector<asio::strand<asio::io_context::executor_type>> strands_;  // [stream][leg], flat
  std::mutex mutex_;                                                    // guards the members below
  // Per stream and leg (a feed of one leg is leg 0); null when free.
  std::vector<std::array<std::shared_ptr<Group>, kMaxLegs>> groups_;
  std::vector<std::shared_ptr<Group>> probes_;  // capacity probes, apart from the feeds
  bool stopped_ = false;
};

}  // namespace hdstream
