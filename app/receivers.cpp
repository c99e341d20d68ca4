#include "app/receivers.hpp"

namespace hdstream {

ReceiverGroup::ReceiverGroup(Runtime& runtime, StatsRegistry& stats, TransportKind kind,
                             Endpoint listen, std::function<void()> on_all_ended,
                             std::optional<PresharedKey> key)
    : feeds_(stats, std::move(on_all_ended)) {
  ReceiverOptions options;
  options.listen = std::move(listen);
  options.streams = stats.size();
  options.key = key;
  transport_ = make_receiver(kind, runtime.io(), std::move(options), stats, feeds_);
}

}  // namespace hdstream
