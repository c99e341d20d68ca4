#include "app/receivers.hpp"

namespace hdstream {

ReceiverGroup::ReceiverGroup(Runtime& runtime, StatsRegistry& stats, const Wire& wire,
                             ReceiverOptions options, std::function<void()> on_all_ended,
                             MediaOutput output)
    : feeds_(
          stats,
          [this, ended = std::move(on_all_ended)] {
            stop();
            if (ended) ended();
          },
          std::move(output)) {
  options.streams = stats.size();
  transport_ = make_receiver(wire, runtime.io(), std::move(options), stats, feeds_);
}

}  // namespace hdstream
