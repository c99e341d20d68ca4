// One TCP connection of a sender: connect with backoff, socket tuning and the handshake; the one
// reader of what the receiver says (FEEDBACK applied here, anything else handed to the owner);
// TCP_INFO; and one fail path: the first failure closes the socket and reaches the owner once.
// TcpSender runs a link per session, MultiTcpSender one per sub-connection and generation.
//   auto link = std::make_shared<TcpLink>(strand, "tcp", "stream 2", counters, on_failure);
//   auto outcome = co_await link->connect(options, hello, options.connect_patience, stopped);
//   if (outcome.accepted) co_spawn(strand, link->read_loop(nullptr), detached);
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/asio.hpp"
#include "protocol/wire.hpp"
#include "stats/counters.hpp"
#include "transport/tcp_connect.hpp"
#include "transport/transport.hpp"

namespace hdstream {

class TcpLink : public std::enable_shared_from_this<TcpLink> {
 public:
  // The link's first failure, one line (the socket is closed already).
  using OnFailure = std::function<void(const std::string& why)>;
  // A control message other than FEEDBACK. Returns a reason to fail the link (a protocol
  // error), or nothing to read on.
  using OnMessage = std::function<std::optional<std::string>(
      const MessageHeader& header, std::span<const std::byte> body, bool checksum_ok)>;

  // All on `executor` (the feed's strand). `component` names the logger, `label` the link in
  // log lines ("stream 2", "stream 2 sub-connection 1/4"). FEEDBACK reports go to `counters`.
  TcpLink(asio::any_io_executor executor, std::string component, std::string label,
          StreamCounters& counters, OnFailure on_failure);

  tcp::socket& socket() { return socket_; }
  const std::string& label() const { return label_; }
  bool failed() const { return failed_; }

  // Connects (retrying for `patience`), tunes the socket for `options` and exchanges `hello`
  // (a whole HELLO message, alive until this returns) for HELLO_ACK. Not accepted with an empty
  // error: the connect failed (logged). Does not fail the link: the owner decides what a
  // refusal means.
  awaitable<HandshakeOutcome> connect(const SenderOptions& options,
                                      std::span<const std::byte> hello,
                                      std::chrono::nanoseconds patience, const bool& stopped);

  // Reads the receiver's messages until the connection ends or fails. FEEDBACK is applied to
  // the counters (a malformed one is logged, up to 5 times, and ignored: health reports never
  // take a feed down); everything else goes to `on_message` (may be null: ignored). Every
  // error fails the link, except EOF after expect_close() and anything after stop().
  awaitable<void> read_loop(OnMessage on_message);

  // The first call closes the socket and reports `why`; later calls do nothing.
  void fail(std::string why);
  // The receiver's closing the connection is now its confirmation, not a failure.
  void expect_close() { close_expected_ = true; }
  // Closes; the reader then ends without reporting a failure.
  void stop();
  // Closes; the reader then reports the failure as it sees it.
  void close();

  // Reads TCP_INFO (false once closed or unreadable); the figures stay until the next sample.
  bool sample_tcp_info();
  double rtt_ms() const { return rtt_ms_; }
  std::uint64_t retransmits() const { return retransmits_; }      // this connection's, in total
  std::uint64_t segments_sent() const { return segments_sent_; }  // data segments, in total

 private:
  tcp::socket socket_;
  std::string component_;
  std::string label_;
  StreamCounters& counters_;
  OnFailure on_failure_;
  std::uint64_t bad_feedback_ = 0;
  double rtt_ms_ = 0;
  std::uint64_t retransmits_ = 0;
  std::uint64_t segments_sent_ = 0;
  bool failed_ = false;
  bool stopped_ = false;
  bool close_expected_ = false;
};

}  // namespace hdstream
