// One caller on an SrtReceiver's stream port, from its HELLO to its last report: the HELLO
// (examined as every receiver does, then against what this port and lane were announced), the
// receiver's admission, the stripes of a striped feed, the chunks into the reassembler, feedback
// on the same connection, and the end. Runs on the listener's thread for the caller's lane.
//   SrtReceiver::Session session(receiver, stream, leg, socket, /*announced_probe=*/false);
//   const bool clean = session.run();
#pragma once

#include <array>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "protocol/reassembler.hpp"
#include "transport/admission.hpp"
#include "transport/feedback.hpp"
#include "transport/hello_intake.hpp"
#include "transport/reassembly_publisher.hpp"
#include "transport/srt/srt_receiver.hpp"
#include "transport/srt/srt_stripe_group.hpp"

namespace hdstream {

class SrtReceiver::Session {
 public:
  // `announced_leg`: the lane the caller's stream id announced (the HELLO must be that leg's);
  // `announced_probe`: it announced a capacity probe (then the HELLO must be a probe's).
  Session(SrtReceiver& owner, std::uint16_t stream, std::uint8_t announced_leg, SrtSocket& socket,
          bool announced_probe);
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ~Session();

  // true when the feed (or probe) ended with END and every frame accounted for.
  bool run();

 private:
  // The HELLO within the handshake timeout, examined, then checked against this connection.
  HelloIntake read_hello();
  // Why a valid HELLO cannot be served on this connection (and with which status); empty when
  // it can: it must fit SRT's messages and be what the caller's stream id announced.
  std::string wire_refusal(std::uint16_t stream_id, const Hello& hello, AckStatus& status) const;
  // Reassembly bounds: SRT delivers in order and drops what is too late to play (latency budget
  // 0); stripes are K in-order connections, so a gap is final only after the budget, as on mtcp.
  ReassemblerConfig reassembler_config(const Hello& hello) const;
  // Opens stripes 1 .. K-1 on ports of their own for this session; false (logged) if it cannot.
  bool open_stripes(std::string& refusal);
  // Sends a refusal and waits (at most the handshake timeout) for the caller to read it and
  // close: SRT hands it over only at its play time, and closing first would lose it.
  void refuse(AckStatus status, const std::string& reason);
  // Chunks until END (true: every stripe ended too) or a loss, feedback every interval.
  bool receive();
  // The last report, repeated until the sender closes (it has the final counts then).
  void send_last_report();
  // Hands the reassembler's ready frames on; under intake_ when stripes run.
  void deliver();
  SrtStats srt_stats();
  std::vector<std::byte> report(bool last);

  SrtReceiver& owner_;
  const std::uint16_t stream_;
  const std::uint8_t announced_leg_;
  SrtSocket& socket_;
  const bool announced_probe_;
  const std::string peer_;
  std::array<std::byte, 2048> message_{};
  std::size_t received_ = 0;

  Hello hello_;  // once examined
  ReassemblerConfig config_;
  std::optional<Admission::Session> admitted_;
  std::mutex intake_;  // one stripe at a time into the reassembler and the consumer
  std::optional<Reassembler> reassembler_;
  std::optional<ReassemblyPublisher> publisher_;
  std::unique_ptr<SrtStripeGroup> stripes_;  // a striped feed's stripes 1 .. K-1
  FeedbackMeter feedback_meter_;
};

}  // namespace hdstream
