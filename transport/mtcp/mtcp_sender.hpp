// One feed striped over K TCP sub-connections (mtcp): each chunk goes to the sub-connection
// with the most room; the receiver acknowledges what arrived on each, so a sub-connection that
// breaks has its unacknowledged chunks re-sent on the others while it is re-established.
//   auto sender = std::make_shared<MultiTcpSender>(strand, options, counters);  // K =
//   hello.connections
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <vector>

#include "common/async_event.hpp"
#include "protocol/ack.hpp"
#include "transport/mtcp/mtcp_scheduler.hpp"
#include "transport/mtcp/mtcp_window.hpp"
#include "transport/tcp_link.hpp"
#include "transport/transport.hpp"

namespace hdstream {

class MultiTcpSender : public SenderTransport, public std::enable_shared_from_this<MultiTcpSender> {
 public:
  MultiTcpSender(asio::any_io_executor executor, SenderOptions options, StreamCounters& counters);
  ~MultiTcpSender() override;

  awaitable<bool> open() override;
  SubmitResult submit(FramePtr frame) override;
  awaitable<bool> close(std::uint64_t frames_sent) override;
  void stop() override;
  // Only a sender whose open() failed starts over, as a new session from `first_frame_seq` (a
  // protected feed's leg whose path was down at the start), connecting for --reconnect's
  // patience. A session that ran re-establishes its own sub-connections and is not reopened.
  awaitable<bool> reopen(std::uint64_t first_frame_seq) override;

  // Fault injection for tests and `check`: resets sub-connection `index` abortively (RST), as
  // a broken path would. Safe from any thread.
  void break_subconnection(std::size_t index);

 private:
  enum class SubState : std::uint8_t { down = 0, running = 1 };
  struct Subconnection {
    explicit Subconnection(const asio::any_io_executor& executor) : wake(executor) {}
    std::uint8_t index = 0;
    std::shared_ptr<TcpLink> link;  // this generation's connection
    SubState state = SubState::down;
    std::uint64_t generation = 0;        // coroutines of an older generation exit
    std::uint64_t retransmits_base = 0;  // TCP retransmits of earlier generations
    std::uint64_t retransmits_now = 0;
    std::uint64_t segments_base = 0;  // data segments sent by earlier generations
    std::uint64_t segments_now = 0;
    AsyncEvent wake;
    bool reconnecting = false;
    std::vector<asio::const_buffer> gather;
  };

  std::string label(const Subconnection& sub) const;
  // The resend window for a session whose first frame is options_.hello.first_frame_seq.
  std::unique_ptr<MtcpWindow> make_window();
  // A connection for `sub`'s next generation; its failure breaks that generation.
  std::shared_ptr<TcpLink> new_link(Subconnection& sub);
  std::vector<std::byte> hello_for(const Subconnection& sub) const;
  awaitable<bool> establish(Subconnection& sub, bool first);
  void start_io(Subconnection& sub);
  awaitable<void> write_loop(Subconnection& sub, std::uint64_t generation);
  awaitable<void> read_loop(Subconnection& sub, std::uint64_t generation);
  awaitable<void> reconnect(Subconnection& sub);
  awaitable<void> sample_tcp_info();
  void schedule();
  // nullopt, or why the ACK is a protocol error (the sub-connection then breaks).
  std::optional<std::string> on_ack(Subconnection& sub, const Ack& ack);
  void broken(Subconnection& sub, std::uint64_t generation, const std::string& why);
  void fail(std::string_view why);
  bool any_running() const;

  asio::any_io_executor executor_;
  SenderOptions options_;
  StreamCounters& counters_;
  std::uint64_t session_id_ = 0;
  std::vector<std::unique_ptr<Subconnection>> subs_;
  std::vector<SubconnectionLoad> loads_;
  std::uint64_t room_bytes_ = 0;
  std::unique_ptr<MtcpWindow> window_;  // the frames not yet fully acknowledged
  AsyncEvent window_changed_;
  AsyncEvent readers_done_;
  std::size_t readers_open_ = 0;
  bool closing_ = false;
  bool ended_ = false;  // END written: the receiver's close is expected
  bool broken_ = false;
  bool stopped_ = false;
  bool opened_ = false;  // open() succeeded once
  std::uint64_t resent_chunks_ = 0;
};

}  // namespace hdstream
