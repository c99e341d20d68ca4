// N receiving feeds behind one listen address. Used by `recv`, `demo` and `bench --listen`.
//   ReceiverGroup receivers(runtime, stats, Wire{TransportKind::tcp}, {.listen = listen},
//                           [&] { ended(); });
//   receivers.start();  ...  receivers.stop();
#pragma once

#include <functional>
#include <memory>
#include <optional>

#include "app/runtime.hpp"
#include "pipeline/feed_receiver.hpp"
#include "transport/factory.hpp"
#include "transport/transport.hpp"

namespace hdstream {

class ReceiverGroup {
 public:
  // Once every feed has ended (with END), the group stops listening and calls `on_all_ended`.
  // `output` decodes video feeds and sends them to a sink (pipeline/media_output.hpp).
  // `options`: what the command sets (listen, srt, key, max memory, skew); the streams are the
  // registry's.
  ReceiverGroup(Runtime& runtime, StatsRegistry& stats, const Wire& wire, ReceiverOptions options,
                std::function<void()> on_all_ended, MediaOutput output = {});

  // Binds and listens; throws std::system_error naming the address.
  void start() { transport_->start(); }
  Endpoint local_endpoint() const { return transport_->local_endpoint(); }
  void stop() { transport_->stop(); }
  // After stop() and the runtime has run out: decoders drain, files are finalized.
  void finish_media() { feeds_.finish_media(); }

 private:
  FeedReceivers feeds_;
  std::shared_ptr<ReceiverTransport> transport_;
};

}  // namespace hdstream
