#include "tools/linkemu/forwarder.hpp"

#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "common/log.hpp"

namespace hdstream::linkemu {
namespace {

constexpr std::size_t kMaxPacketBytes = 65536;
constexpr int kMaxReadsPerWakeup = 256;

// Waking for every packet, once as it arrives and once as it falls due, costs two context
// switches a packet: on a 2-core VM some 20 us each. A wakeup that comes less than a quantum
// after the last one first sleeps out the quantum, then takes everything that came meanwhile:
// a packet is stamped at most a quantum after it arrived and leaves at most a quantum after it
// falls due (100 us: a tenth of kLateThresholdNs each; 14 jumbo frames at 10 Gbps).
constexpr std::int64_t kWakeQuantumNs = 100'000;

std::int64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

timespec to_timespec(std::int64_t ns) {
  return {static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
}

void raise_max(std::atomic<std::uint64_t>& counter, std::uint64_t value) {
  if (value > counter.load(std::memory_order_relaxed)) {
    counter.store(value, std::memory_order_relaxed);
  }
}

void bump(std::atomic<std::uint64_t>& counter, std::uint64_t by = 1) {
  // Single writer: a load and a store are enough and cheaper than a locked add.
  counter.store(counter.load(std::memory_order_relaxed) + by, std::memory_order_relaxed);
}

}  // namespace

Forwarder::Forwarder(std::string name, int source_fd, std::vector<Route> routes,
                     std::vector<Direction> directions, std::shared_ptr<const LinkControl> control)
    : name_(std::move(name)),
      source_fd_(source_fd),
      routes_(std::move(routes)),
      control_(std::move(control)),
      scratch_(new std::byte[kMaxPacketBytes]) {
  stop_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (stop_fd_ < 0) throw std::runtime_error(fmt::format("eventfd: {}", std::strerror(errno)));
  for (auto& direction : directions) {
    const std::size_t line_bytes = direction.delay_line_bytes;
    const auto seed = direction.seed;
    auto profile = direction.profile;
    lanes_.push_back(std::unique_ptr<Lane>(
        new Lane{std::move(direction), LinkModel(profile, seed), DelayLine(line_bytes)}));
  }
}

Forwarder::~Forwarder() {
  stop();
  close(stop_fd_);
}

void Forwarder::start() {
  thread_ = std::thread([this] { run(); });
}

void Forwarder::stop() {
  if (!thread_.joinable()) return;
  const std::uint64_t one = 1;
  if (write(stop_fd_, &one, sizeof one) < 0) {
    logger("linkemu")->warn("cannot signal forwarder stop: {}", std::strerror(errno));
  }
  thread_.join();
}

Forwarder::Lane* Forwarder::lane_for(const std::byte* packet, std::size_t bytes) {
  if (bytes < 20 || (std::to_integer<unsigned>(packet[0]) >> 4) != 4) return nullptr;
  std::uint32_t destination = 0;
  for (int i = 16; i < 20; ++i)
    destination = (destination << 8) | std::to_integer<std::uint32_t>(packet[i]);
  for (const auto& route : routes_) {
    if (route.address != destination) continue;
    for (auto& lane : lanes_) {
      if (lane->direction.destination_site == route.site) return lane.get();
    }
  }
  return nullptr;
}

void Forwarder::read_burst() {
  for (int i = 0; i < kMaxReadsPerWakeup; ++i) {
    const ssize_t n = read(source_fd_, scratch_.get(), kMaxPacketBytes);
    if (n <= 0) return;  // EAGAIN: drained
    const auto bytes = static_cast<std::uint32_t>(n);
    Lane* lane = lane_for(scratch_.get(), bytes);
    if (!lane) {
      unroutable_.fetch_add(1, std::memory_order_relaxed);
      continue;
    }
    DirectionCounters& c = *lane->direction.counters;
    bump(c.packets_in);
    bump(c.bytes_in, bytes);
    if (link_down()) {
      bump(c.outage_drops);
      continue;
    }
    if (control_)
      lane->model.set_random_loss(control_->random_loss.load(std::memory_order_relaxed));
    const Verdict verdict = lane->model.admit(monotonic_ns(), bytes);
    if (verdict.fate == Fate::lost) {
      bump(c.emulated_loss_drops);
    } else if (verdict.fate == Fate::queue_full) {
      bump(c.queue_drops);
    } else if (!lane->line.push(verdict.due_ns, lane->direction.destination_site,
                                {scratch_.get(), bytes})) {
      bump(c.overload_drops);
    } else {
      raise_max(c.peak_delay_line_bytes, lane->line.bytes_used());
    }
  }
}

std::int64_t Forwarder::flush(std::int64_t now_ns) {
  std::int64_t next_due = 0;
  const bool down = link_down();
  for (auto& lane : lanes_) {
    DirectionCounters& c = *lane->direction.counters;
    while (DelayLine::Packet* packet = lane->line.front()) {
      if (packet->due_ns > now_ns) {
        if (next_due == 0 || packet->due_ns < next_due) next_due = packet->due_ns;
        break;
      }
      if (down) {  // in flight when the link went down: lost with it
        bump(c.outage_drops);
        lane->line.pop();
        continue;
      }
      const ssize_t written = write(lane->direction.destination_fd, packet->data(), packet->bytes);
      if (written == static_cast<ssize_t>(packet->bytes)) {
        bump(c.packets_forwarded);
        bump(c.bytes_forwarded, packet->bytes);
        const std::int64_t late_ns = now_ns - packet->due_ns;
        if (late_ns > kLateThresholdNs) {
          bump(c.late_packets);
          raise_max(c.max_late_us, static_cast<std::uint64_t>(late_ns / 1000));
        }
      } else {
        bump(c.overload_drops);
      }
      lane->line.pop();
    }
  }
  return next_due;
}

void Forwarder::run() {
  // Default timer slack (50 us) would add that much to every emulated delay.
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  pthread_setname_np(pthread_self(), fmt::format("linkemu-{}", name_).c_str());
  // The emulator is the wire: on a shared 2-core machine a sender or a compiler must not delay
  // it. A low real-time priority does that; the thread sleeps in ppoll whenever it is idle, and
  // the kernel's RT throttling bounds it in the worst case. Without the privilege, run as is.
  sched_param priority{};
  priority.sched_priority = 10;
  if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &priority) != 0) {
    logger("linkemu")->warn(
        "forwarder {}: no real-time priority; emulated delays will be late under load", name_);
  }
  pollfd fds[2] = {{source_fd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
  std::int64_t last_wake_ns = 0;
  for (;;) {
    const std::int64_t next_due = flush(monotonic_ns());
    timespec timeout{};
    timespec* timeout_ptr = nullptr;
    if (next_due != 0) {
      timeout = to_timespec(std::max<std::int64_t>(0, next_due - monotonic_ns()));
      timeout_ptr = &timeout;
    }
    const int ready = ppoll(fds, 2, timeout_ptr, nullptr);
    if (ready < 0 && errno != EINTR) {
      logger("linkemu")->error("forwarder {}: poll failed: {}", name_, std::strerror(errno));
      return;
    }
    if (fds[1].revents & POLLIN) return;
    if (monotonic_ns() - last_wake_ns < kWakeQuantumNs) {  // packets within a quantum
      const timespec until = to_timespec(last_wake_ns + kWakeQuantumNs);
      clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, nullptr);
    }
    last_wake_ns = monotonic_ns();
    read_burst();  // what arrived until now, if anything did
  }
}

}  // namespace hdstream::linkemu
