// The transport interface: a sender per feed, a receiver per listen address (made by
// transport/factory.hpp, which also knows the wire format that is not a transport: MPEG-TS).
//   auto sender = make_sender(wire, strand, options, counters);
//   if (co_await sender->open()) { sender->submit(frame); ...; co_await sender->close(n); }
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include <optional>
#include "common/asio.hpp"

#include "common/clock.hpp"
#include "common/endpoint.hpp"
#include "protocol/auth.hpp"
#include "protocol/frame.hpp"
#include "protocol/handshake.hpp"
#include "stats/counters.hpp"
#include "stats/registry.hpp"
#include "transport/srt/srt_fec.hpp"
#include "transport/tcp_tuning.hpp"

namespace hdstream {

using namespace std::chrono_literals;

enum class SubmitResult : std::uint8_t {
  queued = 1,
  dropped,  // the send queue is full: a live feed drops the frame rather than fall behind
  closed,   // the session is over (broken, stopped or closing): stop producing frames
};

// SRT settings (ignored by tcp and mtcp).
struct SrtSettings {
  std::string passphrase;                    // empty: unencrypted; else 10..79 characters
  std::uint8_t key_length_bytes = 16;        // AES-128/192/256: 16, 24 or 32
  std::chrono::nanoseconds latency = 120ms;  // SRTO_LATENCY
  std::optional<SrtFec> fec;                 // --srt-fec: libsrt's FEC filter (SRTO_PACKETFILTER)
};

struct SenderOptions {
  Endpoint destination;
  std::string source;  // local address to send from; empty: the kernel's choice
  std::uint16_t stream_id = 0;
  Hello hello;  // feed descriptor and transport parameters announced to the receiver
  SenderTuning tuning;
  std::chrono::nanoseconds expected_rtt = 1ms;      // sizes socket buffers (rate x RTT)
  std::chrono::nanoseconds connect_patience = 10s;  // keep retrying a refused connect this long
  // After a session broke mid-feed (reset, cut path, receiver restarted): keep reconnecting
  // this long. kForever: a live feed comes back whenever its path does; 0: it ends as failed.
  std::chrono::nanoseconds reconnect_patience = kForever;
  std::chrono::nanoseconds handshake_timeout = 5s;
  std::size_t max_queued_frames = 2;  // beyond this a live feed drops frames
  SrtSettings srt{};
  std::optional<PresharedKey> key;  // answers the receiver's challenge (docs/SECURITY.md)
};

// One feed's sending side. Every member except stop() runs on the executor the transport was
// made with (a strand); stop() may be called from anywhere.
class SenderTransport {
 public:
  virtual ~SenderTransport() = default;

  // Connects, retrying with backoff for connect_patience, and completes the handshake.
  // false (with the reason logged) when the feed cannot start.
  virtual awaitable<bool> open() = 0;
  // Queues a frame without waiting.
  virtual SubmitResult submit(FramePtr frame) = 0;
  // Resumes once submit() would not drop for lack of room, or the session is over. Unpaced
  // senders (`hdstream bench`) use it for backpressure. The default polls every millisecond;
  // a transport that knows when its queue drains should override it.
  virtual awaitable<void> wait_for_room() {
    asio::steady_timer timer(co_await asio::this_coro::executor, std::chrono::milliseconds(1));
    error_code ignored;
    co_await timer.async_wait(nothrow(ignored));
  }
  // Sends what is queued, then END (frames_sent), waits for the receiver to close, closes.
  // false when the session broke on the way.
  virtual awaitable<bool> close(std::uint64_t frames_sent) = 0;
  // Aborts: pending operations complete promptly and open()/close() return false.
  virtual void stop() = 0;
  // After the session broke (submit() said closed, without close() or stop()): a new session
  // whose first frame is `first_frame_seq`, retrying with backoff for connect_patience. What
  // was queued in the broken session is counted as dropped. Transports that cannot resume
  // keep this default, and their feed ends as failed.
  virtual awaitable<bool> reopen(std::uint64_t first_frame_seq) {
    (void)first_frame_seq;
    co_return false;
  }
};

// What a receiver hands its frames to; implemented by the pipeline. Calls for one stream are
// never concurrent, calls for different streams may be.
class FrameConsumer {
 public:
  virtual ~FrameConsumer() = default;
  // A sender's HELLO for `stream` was claimed and is about to be accepted: whatever its frames
  // will need is made ready now, before the sender's clock starts (the sender sends its first
  // frame only on the acceptance), so that no frame waits for a cold start. May block the
  // transport's thread for that long (the media module's first loading: ~30 ms, more on a busy
  // machine); called on the transport's own thread, before session_started.
  virtual void prepare(std::uint16_t /*stream*/, const Hello& /*hello*/) {}
  virtual void session_started(std::uint16_t stream, const Hello& hello) = 0;
  virtual void frame_received(std::uint16_t stream, FramePtr frame) = 0;
  // `clean`: the sender said END. Otherwise the session broke (connection reset, peer idle,
  // cut path) and the sender may come back with a new session on the same stream.
  // `next_seq`: every frame below it was delivered or counted as dropped.
  virtual void session_ended(std::uint16_t stream, bool clean, std::uint64_t next_seq) = 0;
};

struct ReceiverOptions {
  Endpoint listen;
  std::size_t streams = 1;  // serves stream ids 0 .. streams-1
  std::chrono::nanoseconds handshake_timeout = 5s;
  std::size_t max_frames_in_flight = 8;
  // Frames in flight across all sessions (--max-memory; transport/frame_memory.hpp).
  // 0: default_max_memory_bytes(streams).
  std::uint64_t max_memory_bytes = 0;
  SrtSettings srt{};                // srt: one UDP port per stream, listen.port + stream id
  std::optional<PresharedKey> key;  // set: every session must prove it holds this key
  // Protected feeds (two legs): how long a frame one leg lacks waits for the other. Unset:
  // sized from the legs' RTTs and jitter (transport/leg_merge.hpp, skew_window).
  std::optional<std::chrono::nanoseconds> skew;
};

class ReceiverTransport {
 public:
  virtual ~ReceiverTransport() = default;
  // Binds and starts accepting; throws std::system_error naming the address on failure.
  virtual void start() = 0;
  virtual Endpoint local_endpoint() const = 0;
  // Closes the listener and every session; safe from any thread.
  virtual void stop() = 0;
};

}  // namespace hdstream
