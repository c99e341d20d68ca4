#include "transport/srt_stream_listeners.hpp"

#include "common/log.hpp"

namespace hdstream {

SrtStreamListeners::~SrtStreamListeners() {
  stopped_ = true;
  for (auto& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
}

void SrtStreamListeners::start(const SrtPlan& plan, const Endpoint& listen, std::size_t streams,
                               Session session) {
  std::vector<SrtSocket> listeners = listen_per_stream(plan, listen, streams);
  base_port_ = listeners.front().local_port();
  for (std::size_t stream = 0; stream < streams; ++stream) {
    // `this` outlives the threads: the destructor joins them.
    threads_.emplace_back(
        [this, stream, session, listener = std::move(listeners[stream])]() mutable {
          serve(static_cast<std::uint16_t>(stream), std::move(listener), session);
        });
  }
}

Endpoint SrtStreamListeners::local_endpoint(const Endpoint& listen) const {
  return Endpoint{listen.host == "0.0.0.0" || listen.host.empty() ? "127.0.0.1" : listen.host,
                  base_port_};
}

void SrtStreamListeners::serve(std::uint16_t stream, SrtSocket listener, const Session& session) {
  while (!stopped_) {
    std::optional<SrtSocket> accepted;
    try {
      accepted = listener.accept(std::chrono::milliseconds(100));
    } catch (const SrtError& error) {
      logger("srt")->warn("stream {}: {}", stream, error.what());
      continue;
    }
    if (accepted) session(stream, *accepted);
  }
}

}  // namespace hdstream
