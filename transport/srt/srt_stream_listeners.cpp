#include "transport/srt/srt_stream_listeners.hpp"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "common/log.hpp"

namespace hdstream {
namespace {

// A thread running one probe session; `done` once the session returned.
struct ProbeThread {
  std::shared_ptr<std::atomic<bool>> done = std::make_shared<std::atomic<bool>>(false);
  std::thread thread;
};

// One feed lane of a port: its thread takes callers from `waiting`, one session at a time.
struct FeedLane {
  std::mutex mutex;
  std::condition_variable wake;
  std::optional<SrtSocket> waiting;
  std::thread thread;
};

char leg_name(std::uint8_t leg) {
  return static_cast<char>('A' + leg);
}

}  // namespace

SrtStreamListeners::~SrtStreamListeners() {
  stopped_ = true;
  for (auto& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
}

void SrtStreamListeners::start(const SrtPlan& plan, const Endpoint& listen, std::size_t streams,
                               std::size_t lanes, Session session, Session probe_session) {
  std::vector<SrtSocket> listeners = listen_per_stream(plan, listen, streams);
  base_port_ = listeners.front().local_port();
  lanes = std::max<std::size_t>(lanes, 1);
  for (std::size_t stream = 0; stream < streams; ++stream) {
    // `this` outlives the threads: the destructor joins them.
    threads_.emplace_back([this, stream, lanes, session, probe_session,
                           listener = std::move(listeners[stream])]() mutable {
      serve(static_cast<std::uint16_t>(stream), std::move(listener), lanes, session, probe_session);
    });
  }
}

Endpoint SrtStreamListeners::local_endpoint(const Endpoint& listen) const {
  return Endpoint{listen.host == "0.0.0.0" || listen.host.empty() ? "127.0.0.1" : listen.host,
                  base_port_};
}

void SrtStreamListeners::serve(std::uint16_t stream, SrtSocket listener, std::size_t lanes,
                               const Session& session, const Session& probe_session) {
  // Each lane's thread takes callers from its `waiting`, one session at a time.
  std::deque<FeedLane> feeds(lanes);
  for (std::size_t i = 0; i < lanes; ++i) {
    // A deque's elements stay where they are: each thread holds its own lane.
    feeds[i].thread =
        std::thread([this, &session, stream, &lane = feeds[i], leg = static_cast<std::uint8_t>(i)] {
          for (;;) {
            std::optional<SrtSocket> caller;
            {
              std::unique_lock lock(lane.mutex);
              while (!lane.waiting && !stopped_)
                lane.wake.wait_for(lock, std::chrono::milliseconds(100));
              if (stopped_) return;
              caller = std::move(lane.waiting);
              lane.waiting.reset();
            }
            session(stream, leg, *caller);
          }
        });
  }
  std::list<ProbeThread> probes;
  auto turn_away = [&](const SrtSocket& caller, const std::string& why) {
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
    // The lane the caller announces; a listener without it serves the caller as it always did,
    // on its first.
    std::uint8_t leg = accepted->announced_leg();
    if (leg >= lanes) leg = 0;
    if (probe_session && accepted->announces_probe()) {
      if (probes.size() >= kMaxProbeThreadsPerPort) {
        turn_away(*accepted, "too many capacity probes on this port");
        continue;
      }
      ProbeThread& probe = probes.emplace_back();
      probe.thread = std::thread([&probe_session, stream, leg, done = probe.done,
                                  caller = std::move(*accepted)]() mutable {
        probe_session(stream, leg, caller);
        *done = true;
      });
      continue;
    }
    FeedLane& lane = feeds[leg];
    std::lock_guard lock(lane.mutex);
    if (lane.waiting) {
      // Beyond the backlog of one a feed session may have waiting.
      const char* why = "a feed session runs and another caller waits already";
      turn_away(*accepted,
                leg == 0 ? std::string(why) : fmt::format("leg {}: {}", leg_name(leg), why));
      continue;
    }
    lane.waiting = std::move(accepted);
    lane.wake.notify_one();
  }
  for (auto& lane : feeds) lane.thread.join();
  for (auto& probe : probes) probe.thread.join();
}

}  // namespace hdstream
