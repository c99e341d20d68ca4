// One feed over SRT live mode: frames become hdstream chunks of one SRT packet each (1408 bytes
// of payload + the 48-byte header = SRTO_PAYLOADSIZE 1456; 4 bytes less when an FEC filter is
// in force, asked for by --srt-fec or by the receiver). libsrt's blocking API runs in the
// feed's own thread; every call there times out within 100 ms, so stop() is bounded. With
// HELLO connections = K >= 2 the feed is striped over K SRT connections: stripe 0 to the
// stream's port, stripes 1 .. K-1 to the ports the receiver's HELLO_ACK names, each chunk on the
// stripe with the least in libsrt's send buffer (SrtStripeScheduler); a stripe that breaks
// breaks the session, which reopen() starts again on all K.
//   auto sender = std::make_shared<SrtSender>(strand, options, counters);  // port + stream id
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "protocol/packetizer.hpp"
#include "transport/feed_thread.hpp"
#include "transport/srt/srt_link.hpp"
#include "transport/srt/srt_socket.hpp"
#include "transport/srt/srt_stripes.hpp"
#include "transport/transport.hpp"

namespace hdstream {

class SrtSender : public SenderTransport, public std::enable_shared_from_this<SrtSender> {
 public:
  SrtSender(asio::any_io_executor executor, SenderOptions options, StreamCounters& counters);
  ~SrtSender() override;

  awaitable<bool> open() override;
  // After the connection broke: a new SRT connection and HELLO starting at `first_frame_seq`,
  // retrying for connect_patience (a receiver restarted after kill -9, a rebooted host).
  awaitable<bool> reopen(std::uint64_t first_frame_seq) override;
  SubmitResult submit(FramePtr frame) override;
  awaitable<bool> close(std::uint64_t frames_sent) override;
  void stop() override;

 private:
  void run();  // the feed's thread
  bool connect_and_handshake();
  // Connects one stripe (0: the stream's own port) and sends its HELLO; its HELLO_ACK, or
  // nullopt with the reason logged.
  std::optional<HelloAck> connect_stripe(std::size_t stripe, const Endpoint& remote,
                                         std::chrono::nanoseconds patience);
  std::optional<HelloAck> await_hello_ack(SrtSocket& socket, const Endpoint& remote);
  bool send_frame(const Frame& frame);
  bool finish(std::uint64_t frames_sent);
  // END messages sent at once: 1, or enough to complete the packet filter's groups.
  std::size_t end_repeats() const;
  static constexpr std::size_t kMaxEndRepeats = 2048;
  void sample_stats(bool force = false);
  void set_stripe_states(StreamState state);  // each stripe's `subconn` state (K >= 2)
  void read_feedback();
  // A message from the receiver, in reply_; true when it is the session's last report.
  bool apply_message(std::size_t received);
  bool stopped() const { return feed_.stopped(); }

  SenderOptions options_;
  StreamCounters& counters_;
  Endpoint remote_;
  std::vector<SrtSocket> stripes_;  // [0]: the stream's own connection (the only one if K = 1)
  SrtStripeScheduler scheduler_;
  FeedThread feed_;

  // Chunk payload: as planned (srt_chunk_bytes()), or less once connected if the receiver's
  // packet filter left less room in a packet; the HELLO announces it.
  std::uint32_t chunk_bytes_;
  std::vector<EncodedChunk> chunks_;
  std::array<std::byte, kSrtMaxPayloadBytes> packet_{};
  // What the receiver says (live mode refuses to receive into less than a whole packet).
  std::array<std::byte, kSrtMaxPayloadBytes> reply_{};
  std::uint64_t bad_feedback_ = 0;
  std::chrono::steady_clock::time_point next_stats_;
};

}  // namespace hdstream
