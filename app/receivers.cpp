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
          // A TS's media is its receiver's (mux/TsFeedMedia): its pictures are not ours to decode.
          wire.mux == Mux::ts ? MediaOutput{} : output) {
  options.streams = stats.size();
  transport_ = make_receiver(wire, runtime.io(), std::move(options), stats, feeds_, &output);
}

}  // namespace hdstream
