#include "app/receivers.hpp"

namespace hdstream {

ReceiverGroup::ReceiverGroup(Runtime& runtime, StatsRegistry& stats, const Wire& wire,
                             Endpoint listen, std::function<void()> on_all_ended,
                             MediaOutput output, SrtSettings srt, std::optional<PresharedKey> key,
                             std::uint64_t max_memory_bytes)
    : feeds_(
          stats,
          [this, ended = std::move(on_all_ended)] {
            stop();
            if (ended) ended();
          },
          std::move(output)) {
  ReceiverOptions options;
  options.listen = std::move(listen);
  options.streams = stats.size();
  options.srt = std::move(srt);
  options.key = std::move(key);
  options.max_memory_bytes = max_memory_bytes;
  transport_ = make_receiver(wire, runtime.io(), std::move(options), stats, feeds_);
}

}  // namespace hdstream
