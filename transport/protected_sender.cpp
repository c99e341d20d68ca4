#include "transport/protected_sender.hpp"

#include "common/clock.hpp"
#include "common/log.hpp"

namespace hdstream {
namespace {

std::shared_ptr<spdlog::logger> log() {
  return logger("protect");
}

// How long a feed whose first leg is up waits for the other at the start, at most.
constexpr auto kOtherLegGrace = std::chrono::seconds(1);
// Between two tries to bring a leg back, once its transport's own retries gave up.
constexpr auto kLegRetryPause = std::chrono::seconds(1);

char leg_name(std::size_t leg) {
  return static_cast<char>('A' + leg);
}

}  // namespace

ProtectedSender::ProtectedSender(asio::any_io_executor executor, std::array<LegTransport, 2> legs,
                                 StreamCounters& counters, std::uint16_t stream_id)
    : executor_(std::move(executor)),
      counters_(counters),
      stream_id_(stream_id),
      changed_(executor_) {
  for (std::size_t i = 0; i < legs.size(); ++i) {
    legs_[i].transport = std::move(legs[i].transport);
    legs_[i].counters = legs[i].counters;
    legs_[i].pause = std::make_unique<asio::steady_timer>(executor_);
  }
  counters_.protection.present.store(true, std::memory_order_relaxed);
}

void ProtectedSender::publish_legs_up() {
  counters_.protection.legs_up.store(static_cast<std::uint32_t>(legs_[0].up + legs_[1].up),
                                     std::memory_order_relaxed);
}

template <typename Step>
awaitable<std::array<bool, 2>> ProtectedSender::on_both(Step step) {
  std::array<bool, 2> result{};
  int pending = 2;
  AsyncEvent done(executor_);
  for (std::size_t i = 0; i < 2; ++i) {
    asio::co_spawn(
        executor_,
        [&, i]() -> awaitable<void> {
          try {
            result[i] = co_await step(i);
          } catch (const std::exception& error) {
            log()->error("stream {} leg {}: {}", stream_id_, leg_name(i), error.what());
          }
          if (--pending == 0) done.set();
        },
        asio::detached);
  }
  co_await done.wait();
  co_return result;
}

awaitable<bool> ProtectedSender::open() {
  // The feed starts as soon as one leg is up: a path that is down at the start of the show
  // holds up nothing. The other leg joins when it connects, or is retried in the background.
  for (std::size_t i = 0; i < 2; ++i) {
    legs_[i].restoring = true;
    asio::co_spawn(
        executor_, [self = shared_from_this(), i] { return self->open_leg(i); }, asio::detached);
  }
  while (!any_up() && any_restoring() && !stopped_) co_await changed_.wait_for_notify();
  if (!any_up()) {
    counters_.state.store(StreamState::failed, std::memory_order_relaxed);
    co_return false;
  }
  if (any_restoring()) {
    // Both legs carry the feed from its first frame when the other is a moment behind.
    asio::steady_timer grace(executor_, kOtherLegGrace);
    auto expired = std::make_shared<bool>(false);
    grace.async_wait([self = shared_from_this(), expired](error_code ec) {
      if (ec) return;
      *expired = true;
      self->changed_.notify();
    });
    while (any_restoring() && !*expired && !stopped_) co_await changed_.wait_for_notify();
    grace.cancel();
  }
  started_ = true;
  for (std::size_t i = 0; i < 2; ++i) {
    if (legs_[i].up) continue;
    log()->warn(
        "stream {}: leg {} is not connected yet; the feed starts on leg {} alone, unprotected, "
        "until it is",
        stream_id_, leg_name(i), leg_name(1 - i));
    if (!legs_[i].restoring) retry(i, first_seq_);  // its first connection already failed
  }
  counters_.state.store(StreamState::running, std::memory_order_relaxed);
  co_return true;
}

awaitable<void> ProtectedSender::open_leg(std::size_t i) {
  bool opened = false;
  try {
    opened = co_await legs_[i].transport->open();
  } catch (const std::exception& error) {
    log()->error("stream {} leg {}: {}", stream_id_, leg_name(i), error.what());
  }
  legs_[i].restoring = false;
  if (opened && !stopped_ && !closing_) {
    legs_[i].up = true;
    publish_legs_up();
    if (started_) {
      log()->info("stream {}: leg {} connected; the feed is protected", stream_id_, leg_name(i));
    }
  } else if (!opened && started_ && !stopped_ && !closing_) {
    retry(i, first_seq_);  // the feed runs on the other leg; keep trying this one
  }
  changed_.notify();
}

void ProtectedSender::retry(std::size_t i, std::uint64_t first_frame_seq) {
  legs_[i].restoring = true;
  asio::co_spawn(
      executor_,
      [self = shared_from_this(), i, first_frame_seq] { return self->restore(i, first_frame_seq); },
      asio::detached);
}

SubmitResult ProtectedSender::submit(FramePtr frame) {
  if (stopped_ || closing_) return SubmitResult::closed;
  bool queued = false, dropped = false;
  const std::uint64_t seq = frame->seq;
  if (!submitted_any_) first_seq_ = seq;
  submitted_any_ = true;
  const std::size_t bytes = frame->data.size();
  for (std::size_t i = 0; i < 2; ++i) {
    Leg& leg = legs_[i];
    if (!leg.up) continue;
    switch (leg.transport->submit(frame)) {
      case SubmitResult::queued:
        queued = true;
        break;
      case SubmitResult::dropped:
        dropped = true;
        leg.counters->drops.fetch_add(1, std::memory_order_relaxed);
        break;
      case SubmitResult::closed:
        // This leg's path broke: the other carries on while it comes back.
        leg.up = false;
        publish_legs_up();
        log()->warn("stream {}: leg {} lost; the feed runs on leg {} alone until it is back",
                    stream_id_, leg_name(i), leg_name(1 - i));
        retry(i, seq + 1);
        break;
    }
  }
  if (queued) {
    counters_.add_frame(bytes, wall_clock_ns());
    return SubmitResult::queued;
  }
  if (dropped) return SubmitResult::dropped;
  counters_.state.store(StreamState::waiting, std::memory_order_relaxed);
  return SubmitResult::closed;  // no leg up: the feed's session is broken
}

awaitable<void> ProtectedSender::restore(std::size_t i, std::uint64_t first_frame_seq) {
  // For as long as the feed runs: a path may come back at any time, and the show is on the
  // other leg meanwhile.
  bool back = co_await legs_[i].transport->reopen(first_frame_seq);
  while (!back && !stopped_ && !closing_) {
    legs_[i].pause->expires_after(kLegRetryPause);
    error_code ignored;
    co_await legs_[i].pause->async_wait(nothrow(ignored));  // close() and stop() cancel it
    if (stopped_ || closing_) break;
    back = co_await legs_[i].transport->reopen(first_frame_seq);
  }
  legs_[i].restoring = false;
  legs_[i].up = back && !stopped_ && !closing_;
  publish_legs_up();
  if (legs_[i].up) {
    log()->info("stream {}: leg {} is back; the feed is protected again", stream_id_, leg_name(i));
  }
  changed_.notify();
}

awaitable<bool> ProtectedSender::reopen(std::uint64_t first_frame_seq) {
  (void)first_frame_seq;  // each leg resumes from the frame after the one it lost
  // Both legs are down and coming back in the background: the feed resumes with the first.
  while (!any_up() && any_restoring() && !stopped_) co_await changed_.wait_for_notify();
  if (!any_up()) {
    counters_.state.store(StreamState::failed, std::memory_order_relaxed);
    co_return false;
  }
  counters_.state.store(StreamState::running, std::memory_order_relaxed);
  co_return true;
}

awaitable<bool> ProtectedSender::close(std::uint64_t frames_sent) {
  closing_ = true;
  // A leg still coming back is abandoned; the legs up end their sessions with END.
  for (auto& leg : legs_) {
    if (leg.restoring) leg.transport->stop();
    leg.pause->cancel();
  }
  while (any_restoring()) co_await changed_.wait_for_notify();
  const std::array<bool, 2> up{legs_[0].up, legs_[1].up};
  const auto closed = co_await on_both([&](std::size_t i) -> awaitable<bool> {
    if (!up[i]) co_return false;
    co_return co_await legs_[i].transport->close(frames_sent);
  });
  const bool clean = closed[0] || closed[1];
  counters_.state.store(clean ? StreamState::finished : StreamState::failed,
                        std::memory_order_relaxed);
  co_return clean;
}

void ProtectedSender::stop() {
  asio::post(executor_, [self = shared_from_this()] {
    self->stopped_ = true;
    for (auto& leg : self->legs_) {
      leg.transport->stop();
      leg.pause->cancel();
    }
    self->changed_.notify();
  });
}

}  // namespace hdstream
