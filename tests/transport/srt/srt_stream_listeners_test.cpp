// SrtStreamListeners over real libsrt on loopback: each stream's port hands its callers to the
// session on that stream's thread, one at a time, a capacity probe's beside it, leg B's on a
// lane of its own beside leg A's, and the destructor ends every thread.
#include "transport/srt/srt_stream_listeners.hpp"

#include <gtest/gtest.h>

#include <array>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "tests/transport/srt/srt_messages.hpp"

namespace hdstream {
namespace {

using namespace std::chrono_literals;

TEST(SrtStreamListeners, EachPortsCallersReachTheSessionForItsStream) {
  ensure_srt_started();
  SrtPlan plan;
  plan.rate_bps = 10'000'000;
  std::mutex mutex;
  std::condition_variable changed;
  std::vector<std::uint16_t> sessions;
  std::vector<std::thread::id> threads;
  {
    SrtStreamListeners listeners;
    // Each session reads its caller's one message (so it does not close on a caller that is
    // still completing its connect), then records which stream and thread it ran on.
    listeners.start(plan, Endpoint{"127.0.0.1", 0}, 3, 1,
                    [&](std::uint16_t stream, std::uint8_t, SrtSocket& s) {
                      const auto message = test::receive_message(s);
                      std::lock_guard lock(mutex);
                      if (message == std::string(1, static_cast<char>(stream))) {
                        sessions.push_back(stream);
                        threads.push_back(std::this_thread::get_id());
                      }
                      changed.notify_all();
                    });
    const Endpoint first = listeners.local_endpoint(Endpoint{"0.0.0.0", 0});
    EXPECT_EQ(first.host, "127.0.0.1");
    EXPECT_EQ(first.port, listeners.base_port());

    for (std::uint16_t stream : {2, 0, 2}) {
      std::unique_lock lock(mutex);
      const std::size_t before = sessions.size();
      lock.unlock();
      SrtSocket caller = SrtSocket::caller(plan);
      caller.connect(Endpoint{"127.0.0.1", static_cast<std::uint16_t>(first.port + stream)});
      const std::array<std::byte, 1> hello{std::byte(stream)};
      ASSERT_EQ(caller.send(hello), SrtIo::ok);
      lock.lock();
      ASSERT_TRUE(changed.wait_for(lock, 5s, [&] { return sessions.size() > before; }));
      EXPECT_EQ(sessions.back(), stream);
    }
  }  // joins the threads
  EXPECT_EQ(sessions, (std::vector<std::uint16_t>{2, 0, 2}));
  EXPECT_EQ(threads[0], threads[2]);  // stream 2's thread both times
  EXPECT_NE(threads[0], threads[1]);
}

TEST(SrtStreamListeners, AProbeCallerRunsBesideTheFeedSessionHoldingThePort) {
  ensure_srt_started();
  std::mutex mutex;
  std::condition_variable changed;
  bool feed_running = false;
  bool feed_may_end = false;
  std::optional<std::string> probe_saw;
  {
    SrtStreamListeners listeners;
    listeners.start(
        SrtPlan{.rate_bps = 10'000'000}, Endpoint{"127.0.0.1", 0}, 1, 1,
        [&](std::uint16_t, std::uint8_t, SrtSocket& s) {
          test::receive_message(s);
          std::unique_lock lock(mutex);
          feed_running = true;
          changed.notify_all();
          changed.wait(lock, [&] { return feed_may_end; });  // holds the port's feed thread
        },
        [&](std::uint16_t, std::uint8_t, SrtSocket& s) {
          auto message = test::receive_message(s);
          std::lock_guard lock(mutex);
          probe_saw = message;
          changed.notify_all();
        });
    const Endpoint port = listeners.local_endpoint(Endpoint{"127.0.0.1", 0});
    SrtSocket feed = SrtSocket::caller(SrtPlan{.rate_bps = 10'000'000});
    feed.connect(port);
    ASSERT_EQ(feed.send(std::array<std::byte, 1>{std::byte{'f'}}), SrtIo::ok);
    {
      std::unique_lock lock(mutex);
      ASSERT_TRUE(changed.wait_for(lock, 5s, [&] { return feed_running; }));
    }
    SrtSocket probe = SrtSocket::caller(SrtPlan{.rate_bps = 10'000'000, .probe = true});
    probe.connect(port);
    ASSERT_EQ(probe.send(std::array<std::byte, 1>{std::byte{'p'}}), SrtIo::ok);
    std::unique_lock lock(mutex);
    EXPECT_TRUE(changed.wait_for(lock, 5s, [&] { return probe_saw.has_value(); }));
    EXPECT_EQ(probe_saw, std::optional<std::string>("p"));
    feed_may_end = true;
    changed.notify_all();
  }  // joins the threads
}

TEST(SrtStreamListeners, LegBsCallerRunsOnItsOwnLaneBesideLegAsSession) {
  ensure_srt_started();
  std::mutex mutex;
  std::condition_variable changed;
  // What each session read, and the leg (lane) it was handed.
  std::vector<std::pair<std::string, std::uint8_t>> sessions;
  std::vector<std::thread::id> threads;
  bool leg_a_may_end = false;
  {
    SrtStreamListeners listeners;
    listeners.start(SrtPlan{.rate_bps = 10'000'000}, Endpoint{"127.0.0.1", 0}, 1, 2,
                    [&](std::uint16_t, std::uint8_t leg, SrtSocket& s) {
                      const auto message = test::receive_message(s);
                      std::unique_lock lock(mutex);
                      sessions.emplace_back(message.value_or("?"), leg);
                      threads.push_back(std::this_thread::get_id());
                      changed.notify_all();
                      // Leg A's session holds its lane until the test lets it go.
                      if (message == "a") {
                        changed.wait_for(lock, 10s, [&] { return leg_a_may_end; });
                      }
                    });
    const Endpoint port = listeners.local_endpoint(Endpoint{"127.0.0.1", 0});
    SrtSocket leg_a = SrtSocket::caller(SrtPlan{.rate_bps = 10'000'000});
    leg_a.connect(port);
    ASSERT_EQ(leg_a.send(std::array<std::byte, 1>{std::byte{'a'}}), SrtIo::ok);
    {
      std::unique_lock lock(mutex);
      ASSERT_TRUE(changed.wait_for(lock, 5s, [&] { return sessions.size() == 1; }));
    }
    // Leg B's session starts while leg A's still runs.
    SrtSocket leg_b = SrtSocket::caller(SrtPlan{.rate_bps = 10'000'000, .leg = 1});
    leg_b.connect(port);
    ASSERT_EQ(leg_b.send(std::array<std::byte, 1>{std::byte{'b'}}), SrtIo::ok);
    std::unique_lock lock(mutex);
    EXPECT_TRUE(changed.wait_for(lock, 5s, [&] { return sessions.size() == 2; }));
    leg_a_may_end = true;
    changed.notify_all();
  }  // joins the threads
  using Seen = std::vector<std::pair<std::string, std::uint8_t>>;
  EXPECT_EQ(sessions, (Seen{{"a", 0}, {"b", 1}}));
  ASSERT_EQ(threads.size(), 2u);
  EXPECT_NE(threads[0], threads[1]);
}

TEST(SrtStreamListeners, AListenerWithOneLaneServesLegBsCallerOnIt) {
  ensure_srt_started();
  std::mutex mutex;
  std::condition_variable changed;
  std::optional<std::uint8_t> leg_given;
  {
    SrtStreamListeners listeners;
    listeners.start(SrtPlan{.rate_bps = 10'000'000}, Endpoint{"127.0.0.1", 0}, 1, 1,
                    [&](std::uint16_t, std::uint8_t leg, SrtSocket& s) {
                      test::receive_message(s);
                      std::lock_guard lock(mutex);
                      leg_given = leg;
                      changed.notify_all();
                    });
    SrtSocket leg_b = SrtSocket::caller(SrtPlan{.rate_bps = 10'000'000, .leg = 1});
    leg_b.connect(listeners.local_endpoint(Endpoint{"127.0.0.1", 0}));
    ASSERT_EQ(leg_b.send(std::array<std::byte, 1>{std::byte{'b'}}), SrtIo::ok);
    std::unique_lock lock(mutex);
    ASSERT_TRUE(changed.wait_for(lock, 5s, [&] { return leg_given.has_value(); }));
  }
  EXPECT_EQ(leg_given, std::optional<std::uint8_t>(0));
}

TEST(SrtStreamListeners, StopEndsTheThreadsWithNoCaller) {
  ensure_srt_started();
  SrtStreamListeners listeners;
  listeners.start(
      SrtPlan{.rate_bps = 10'000'000}, Endpoint{"127.0.0.1", 0}, 2, 2,
      [](std::uint16_t, std::uint8_t, SrtSocket&) { ADD_FAILURE() << "no caller was expected"; });
  listeners.stop();
  EXPECT_TRUE(listeners.stopped());
}  // the destructor returns once both threads saw stop (bounded by accept's 100 ms)

}  // namespace
}  // namespace hdstream
