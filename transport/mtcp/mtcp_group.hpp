// One mtcp feed on the receiving side (MultiTcpReceiver's): its K sub-connections, one
// reassembler that reorders within the latency budget, the ACK on each sub-connection and the
// FEEDBACK reports; the feed's session ends on END, on a stop, or when no sub-connection comes
// back in time.
//   auto group = std::make_shared<MultiTcpReceiver::Group>(owner, stream, hello, memory, strand,
//                                                          peer);
//   asio::post(strand, [group] { group->start(); });  ... group->attach(index, socket, peer);
#pragma once

#include <array>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "protocol/ack.hpp"
#include "protocol/reassembler.hpp"
#include "transport/admission.hpp"
#include "transport/feedback.hpp"
#include "transport/mtcp/mtcp_receiver.hpp"
#include "transport/reassembly_publisher.hpp"

namespace hdstream {

// One mtcp feed: its K sub-connections, its reassembler, its acknowledgements. Runs on the
// stream's strand. A capacity probe is a group too, on a strand of its own, counted apart.
class MultiTcpReceiver::Group : public std::enable_shared_from_this<Group> {
 public:
  // `admitted`: its place and the memory reassembler_config(hello, ...) may hold (see admit()).
  Group(std::shared_ptr<MultiTcpReceiver> owner, std::uint16_t stream, const Hello& hello,
        Admission::Session admitted, asio::strand<asio::io_context::executor_type> strand,
        const std::string& peer);

  std::uint64_t session_id() const { return hello_.session_id; }
  std::uint8_t connections() const { return hello_.connections; }
  std::uint16_t stream() const { return stream_; }
  bool probe() const { return probe_; }
  const asio::strand<asio::io_context::executor_type>& strand() const { return strand_; }

  void start();

  void attach(std::uint8_t index, std::shared_ptr<tcp::socket> socket, std::string peer);

  void close() {
    asio::post(strand_, [self = shared_from_this()] { self->end_session(false, true); });
  }

  // Bounds from the HELLO (protocol/reassembler.hpp); frames in flight: what the latency budget
  // holds back (the sender's resend window is the same size, see mtcp_window_frames).
  static ReassemblerConfig reassembler_config(const Hello& hello, const ReceiverOptions& options);

 private:
  struct Member {
    std::shared_ptr<tcp::socket> socket;
    std::string peer;
    std::uint64_t generation = 0;
    std::uint64_t chunks_received = 0;
    // Everything the receiver says on a sub-connection goes through pump(): one write in
    // flight at a time, an ACK before a FEEDBACK report.
    std::array<std::byte, kAckMessageBytes> ack{};
    std::vector<std::byte> feedback;      // the next report
    std::vector<std::byte> feedback_out;  // the report being written
    bool writing = false;
    bool ack_wanted = false;
    bool feedback_wanted = false;
    bool up = false;
  };

  awaitable<void> read_loop(std::uint8_t index, std::uint64_t generation);
  awaitable<void> ticker();
  void send_ack(std::uint8_t index);
  void send_feedback(bool last);
  void pump(std::uint8_t index);
  void member_lost(std::uint8_t index, std::uint64_t generation, const std::string& why);
  void deliver(std::int64_t now_ns);
  void sample_tcp_info();
  void end_session(bool clean, bool stopping = false);

  std::shared_ptr<MultiTcpReceiver> owner_;
  asio::strand<asio::io_context::executor_type> strand_;
  std::uint16_t stream_;
  Hello hello_;
  std::string peer_;  // the first sub-connection's address
  bool probe_;        // a `check` capacity probe, not a feed
  // Its place and memory (given back when the session ends), its counters and consumer.
  Admission::Session admitted_;
  StreamCounters& counters_;  // admitted_'s
  Reassembler reassembler_;
  std::vector<Member> members_;
  ReassemblyPublisher publisher_;
  std::vector<std::byte> body_;
  std::vector<std::byte> scratch_;
  std::chrono::steady_clock::time_point down_since_;
  std::int64_t next_info_ns_ = 0;
  std::int64_t next_feedback_ns_ = 0;
  FeedbackMeter feedback_meter_;
  // END has arrived: the last FEEDBACK report is on its way on final_member_, then the
  // session ends (by ending_deadline_ at the latest, should the sender stop reading).
  bool ending_ = false;
  int final_member_ = -1;
  std::chrono::steady_clock::time_point ending_deadline_;
  bool ended_ = false;
};

}  // namespace hdstream
