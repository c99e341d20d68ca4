#include "transport/factory.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "pipeline/media_output.hpp"
#include "pipeline/media_provider.hpp"
#include "transport/mtcp/mtcp_receiver.hpp"
#include "transport/mtcp/mtcp_sender.hpp"
#include "transport/srt/srt_receiver.hpp"
#include "transport/srt/srt_sender.hpp"
#include "transport/tcp/tcp_receiver.hpp"
#include "transport/tcp/tcp_sender.hpp"

namespace hdstream {

std::string_view to_string(Mux mux) {
  return mux == Mux::ts ? "ts" : "none";
}

std::optional<Mux> mux_from_string(std::string_view name) {
  if (name == "none") return Mux::none;
  if (name == "ts") return Mux::ts;
  return std::nullopt;
}

std::optional<std::string> wire_problem(const Wire& wire) {
  if (wire.mux == Mux::ts && wire.transport != TransportKind::srt) {
    return "--mux ts needs --transport srt";
  }
  return std::nullopt;
}

namespace {

void check(const Wire& wire) {
  if (auto problem = wire_problem(wire)) throw std::invalid_argument(*problem);
}

}  // namespace

std::shared_ptr<SenderTransport> make_sender(const Wire& wire, asio::any_io_executor executor,
                                             SenderOptions options, StreamCounters& counters) {
  check(wire);
  if (wire.mux == Mux::ts) {
    return media_provider().make_ts_sender(std::move(executor), std::move(options), wire.ts,
                                         counters);
  }
  switch (wire.transport) {
    case TransportKind::tcp:
      return std::make_shared<TcpSender>(std::move(executor), std::move(options), counters);
    case TransportKind::mtcp:
      return std::make_shared<MultiTcpSender>(std::move(executor), std::move(options), counters);
    case TransportKind::srt:
      return std::make_shared<SrtSender>(std::move(executor), std::move(options), counters);
    case TransportKind::invalid:
      break;
  }
  throw std::invalid_argument(
      fmt::format("transport '{}' is not available in this build", to_string(wire.transport)));
}

std::shared_ptr<ReceiverTransport> make_receiver(const Wire& wire, asio::io_context& context,
                                                 ReceiverOptions options, StatsRegistry& stats,
                                                 FrameConsumer& consumer,
                                                 const MediaOutput* ts_output) {
  check(wire);
  if (wire.mux == Mux::ts) {
    return media_provider().make_ts_receiver(std::move(options),
                                           ts_output ? *ts_output : MediaOutput{}, stats, consumer);
  }
  switch (wire.transport) {
    case TransportKind::tcp:
      return std::make_shared<TcpReceiver>(context, std::move(options), stats, consumer);
    case TransportKind::mtcp:
      return std::make_shared<MultiTcpReceiver>(context, std::move(options), stats, consumer);
    case TransportKind::srt:
      return std::make_shared<SrtReceiver>(std::move(options), stats, consumer);
    case TransportKind::invalid:
      break;
  }
  throw std::invalid_argument(
      fmt::format("transport '{}' is not available in this build", to_string(wire.transport)));
}

}  // namespace hdstream
