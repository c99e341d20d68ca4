#include <stdexcept>

#include <fmt/format.h>

#include "transport/mtcp_receiver.hpp"
#include "transport/mtcp_sender.hpp"
#include "transport/srt_receiver.hpp"
#include "transport/srt_sender.hpp"
#include "transport/tcp_receiver.hpp"
#include "transport/tcp_sender.hpp"
#include "transport/transport.hpp"

namespace hdstream {

std::shared_ptr<SenderTransport> make_sender(TransportKind kind, asio::any_io_executor executor,
                                             SenderOptions options, StreamCounters& counters) {
  switch (kind) {
    case TransportKind::tcp:
      return std::make_shared<TcpSender>(std::move(executor), std::move(options), counters);
    case TransportKind::mtcp:
      return std::make_shared<MultiTcpSender>(std::move(executor), std::move(options), counters);
    case TransportKind::srt:
      return std::make_shared<SrtSender>(std::move(executor), std::move(options), counters);
    default:
      throw std::invalid_argument(
          fmt::format("transport '{}' is not available in this build", to_string(kind)));
  }
}

std::shared_ptr<ReceiverTransport> make_receiver(TransportKind kind, asio::io_context& context,
                                                 ReceiverOptions options, StatsRegistry& stats,
                                                 FrameConsumer& consumer) {
  switch (kind) {
    case TransportKind::tcp:
      return std::make_shared<TcpReceiver>(context, std::move(options), stats, consumer);
    case TransportKind::mtcp:
      return std::make_shared<MultiTcpReceiver>(context, std::move(options), stats, consumer);
    case TransportKind::srt:
      return std::make_shared<SrtReceiver>(std::move(options), stats, consumer);
    default:
      throw std::invalid_argument(
          fmt::format("transport '{}' is not available in this build", to_string(kind)));
  }
}

}  // namespace hdstream
