// A receiver's policy for what an accepted HELLO may claim, reserve and merge, the same on tcp,
// mtcp and srt (docs/SECURITY.md): a feed claims its stream's place (or one leg's of a protected
// feed) through LegMerge; a capacity probe claims one of max_capacity_probes() places instead,
// never the stream's; either reserves what its reassembler may hold from --max-memory, probes
// from a budget of their own. What is admitted is a Session: it counts, delivers, starts and
// ends the way its kind does, and gives everything back when it goes.
//   Admission admission(options, stats, consumer, /*idle_frames=*/16, "tcp");
//   auto admitted = admission.admit(stream, hello, config, /*readers=*/1, peer);
//   if (auto* refused = std::get_if<Admission::Refusal>(&admitted)) ...  // HELLO_ACK refusal
//   auto& session = std::get<Admission::Session>(admitted);
//   session.started(hello, "over tcp");  ... deliver into session.consumer() ...
//   session.ended(clean, next_seq);       // then destroy it: the stream is free again
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "protocol/handshake.hpp"
#include "protocol/reassembler.hpp"
#include "stats/registry.hpp"
#include "transport/capacity_probe.hpp"
#include "transport/frame_memory.hpp"
#include "transport/leg_merge.hpp"
#include "transport/transport.hpp"

namespace hdstream {

class Admission {
 public:
  // `idle_frames`: the recycled frame buffers the feeds' pool keeps. `component` names the
  // logger ("tcp", "mtcp", "srt").
  Admission(const ReceiverOptions& options, StatsRegistry& stats, FrameConsumer& consumer,
            std::size_t idle_frames, std::string component);
  ~Admission();
  Admission(const Admission&) = delete;
  Admission& operator=(const Admission&) = delete;

  // One admitted session (a feed, one leg of a protected feed, or a capacity probe); move-only.
  // release() (or destroying it) frees its memory, then its place: after ended(), so the next
  // session finds both free.
  class Session {
   public:
    Session(Session&& other) noexcept;
    Session& operator=(Session&&) = delete;
    Session(const Session&) = delete;
    ~Session();

    bool probe() const { return probe_ != nullptr; }
    CapacityProbe* capacity_probe() { return probe_.get(); }
    // A probe's own counters; a leg of a protected feed the leg's; a feed the stream's.
    StreamCounters& counters() { return *counters_; }
    // Where its frames go: the merge's leg (deliver_ready_frames hands a probe's to the probe).
    FrameConsumer& consumer() { return *consumer_; }
    FrameMemory& memory() { return *memory_; }  // its pool, its refusals of oversized frames

    // The session begins: its counters say so, and a feed's consumer (or the probe's line).
    // `how` is the transport's part of the log line ("over tcp", "over 4 sub-connections").
    void started(const Hello& hello, std::string_view how);
    // The session is over: counters, and a feed's consumer, which has every frame below
    // `next_seq` (delivered or counted).
    void ended(bool clean, std::uint64_t next_seq);
    // Gives its memory and place back now; its counters stay readable until it is destroyed.
    void release();

   private:
    friend class Admission;
    Session(Admission& owner, std::uint16_t stream, std::uint8_t leg, std::string peer,
            std::unique_ptr<CapacityProbe> probe, StreamCounters& counters, FrameConsumer& consumer,
            FrameMemory& memory, MemoryReservation reservation);

    Admission* owner_;  // null once moved from
    bool released_ = false;
    std::uint16_t stream_;
    std::uint8_t leg_;
    std::string peer_;
    std::unique_ptr<CapacityProbe> probe_;
    StreamCounters* counters_;
    FrameConsumer* consumer_;
    FrameMemory* memory_;
    MemoryReservation reservation_;
  };

  struct Refusal {
    AckStatus status = AckStatus::bad_request;
    std::string reason;   // the HELLO_ACK's
    bool logged = false;  // FrameMemory logged it (rate-limited): log no more
  };

  // Claims a place for `hello` on `stream` and reserves what a reassembler with `config` may
  // hold with `readers` payload reads in progress (and, for a leg of a protected feed, what the
  // merge may hold for it).
  std::variant<Session, Refusal> admit(std::uint16_t stream, const Hello& hello,
                                       const ReassemblerConfig& config, std::size_t readers,
                                       const std::string& peer);

  // The memory a session of this kind reserves from: a probe's budget is apart from the feeds'.
  FrameMemory& memory_for(bool probe) { return probe ? probe_memory_ : memory_; }

 private:
  void release(std::uint16_t stream, std::uint8_t leg, bool probe);

  std::size_t streams_;
  std::string component_;
  LegMerge merge_;  // the feeds' consumer, merging the legs of protected feeds
  FrameMemory memory_;
  FrameMemory probe_memory_;
  std::size_t max_probes_;
  std::mutex mutex_;  // guards probes_running_
  std::size_t probes_running_ = 0;
};

}  // namespace hdstream
