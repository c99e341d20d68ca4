#include "transport/srt_stream_listeners.hpp"

#include <condition_variable>
#include <list>
#include <memory>
#include <mutex>
#include <optional>

#include "common/log.hpp"

namespace hdstream {
namespace {

// A thread running one probe session; `done` once the session returned.
struct ProbeThread {
  std::shared_ptr<std::atomic<bool>> done = std::make_shared<std::atomic<bool>>(false);
  std::thread thread;
};

}  // namespace

SrtStreamListeners::~SrtStreamListeners() {
  stopped_ = true;
  for (auto& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
}

void SrtStreamListeners::start(const SrtPlan& plan, const Endpoint& listen, std::size_t streams,
                               Session session, Session probe_session) {
  std::vector<SrtSocket> listeners = listen_per_stream(plan, listen, streams);
  base_port_ = listeners.front().local_port();
  for (std::size_t stream = 0; stream < streams; ++stream) {
    // `this` outlives the threads: the destructor joins them.
    threads_.emplace_back(
        [this, stream, session, probe_session, listener = std::move(listeners[stream])]() mutable {
          serve(static_cast<std::uint16_t>(stream), std::move(listener), session, probe_session);
        });
  }
}

Endpoint SrtStreamListeners::local_endpoint(const Endpoint& listen) const {
  return Endpoint{listen.host == "0.0.0.0" || listen.host.empty() ? "127.0.0.1" : listen.host,
                  base_port_};
}

void SrtStreamListeners::serve(std::uint16_t stream, SrtSocket listener, const Session& session,
                               const Session& probe_session) {
  // The feed thread takes callers from `waiting`, one session at a time.
  std::mutex mutex;
  std::condition_variable wake;
  std::optional<SrtSocket> waiting;
  std::thread feeds([&] {
    for (;;) {
      std::optional<SrtSocket> caller;
      {
        std::unique_lock lock(mutex);
        while (!waiting && !stopped_) wake.wait_for(lock, std::chrono::milliseconds(100));
        if (stopped_) return;
        caller = std::move(waiting);
        waiting.reset();
      }
      session(stream, *caller);
    }
  });
  std::list<ProbeThread> probes;
  auto turn_away = [&](const SrtSocket& caller, const char* why) {
    if (auto held_back = turned_away_.admit()) {
      logger("srt")->warn("stream {}: closing {}: {}{}", stream, caller.peer(), why,
                          held_back_note(*held_back));
    }
  };

  while (!stopped_) {
    probes.remove_if([](ProbeThread& probe) {
      if (!*probe.done) return false;
      probe.thread.join();
      return true;
    });
    std::optional<SrtSocket> accepted;
    try {
      accepted = listener.accept(std::chrono::milliseconds(100));
    } catch (const SrtError& error) {
      logger("srt")->warn("stream {}: {}", stream, error.what());
      continue;
    }
    if (!accepted) continue;
    if (probe_session && accepted->announces_probe()) {
      if (probes.size() >= kMaxProbeThreadsPerPort) {
        turn_away(*accepted, "too many capacity probes on this port");
        continue;
      }
      ProbeThread& probe = probes.emplace_back();
      probe.thread = std::thread(
          [&probe_session, stream, done = probe.done, caller = std::move(*accepted)]() mutable {
            probe_session(stream, caller);
            *done = true;
          });
      continue;
    }
    std::lock_guard lock(mutex);
    if (waiting) {
      // Beyond the backlog of one a feed session may have waiting.
      turn_away(*accepted, "a feed session runs and another caller waits already");
      continue;
    }
    waiting = std::move(accepted);
    wake.notify_one();
  }
  feeds.join();
  for (auto& probe : probes) probe.thread.join();
}

}  // namespace hdstream
