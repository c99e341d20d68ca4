#include "transport/tcp_link.hpp"

#include <fmt/format.h>

#include "common/clock.hpp"
#include "common/log.hpp"
#include "transport/feedback.hpp"
#include "transport/message_io.hpp"
#include "transport/tcp_tuning.hpp"

namespace hdstream {

TcpLink::TcpLink(asio::any_io_executor executor, std::string component, std::string label,
                 StreamCounters& counters, OnFailure on_failure)
    : socket_(std::move(executor)),
      component_(std::move(component)),
      label_(std::move(label)),
      counters_(counters),
      on_failure_(std::move(on_failure)) {}

awaitable<HandshakeOutcome> TcpLink::connect(const SenderOptions& options,
                                             std::span<const std::byte> hello,
                                             std::chrono::nanoseconds patience,
                                             const bool& stopped) {
  if (!co_await connect_with_retry(socket_, options.destination, options.source, patience, stopped,
                                   component_, label_)) {
    co_return HandshakeOutcome{};
  }
  tune_sender_socket(socket_, options, component_, label_);
  // Named, not a temporary: GCC 12 destroys temporaries inside a co_await expression twice.
  std::shared_ptr<void> keep_alive = shared_from_this();
  co_return co_await client_handshake(socket_, hello, options.handshake_timeout, keep_alive,
                                      options.key);
}

awaitable<void> TcpLink::read_loop(OnMessage on_message) {
  auto self = shared_from_this();
  std::vector<std::byte> body;
  for (;;) {
    auto read = co_await read_header(socket_);
    if (failed_ || stopped_) break;
    if (read.error) {
      if (close_expected_ && read.error == asio::error::eof) break;  // the confirmation
      fail(read.detail != HeaderError::none
               ? fmt::format("bad message from receiver: {}", to_string(read.detail))
           : read.error == asio::error::eof
               ? std::string("the receiver closed the connection")
               : fmt::format("connection lost: {}", read.error.message()));
      break;
    }
    auto body_read = co_await read_control_body(socket_, read.header, body);
    if (failed_ || stopped_) break;
    if (body_read.error) {
      fail(fmt::format("connection lost: {}", body_read.error.message()));
      break;
    }
    // The receiver's RTT is measured on these messages: acknowledge them at once.
    acknowledge_now(socket_.native_handle());
    if (read.header.type == MessageType::feedback) {
      auto feedback = body_read.checksum_ok ? decode_feedback(body) : std::nullopt;
      if (feedback) {
        apply_feedback(*feedback, counters_.far_end, wall_clock_ns());
      } else if (bad_feedback_++ < 5) {
        logger(component_)->warn("{}: ignoring a malformed FEEDBACK from the receiver", label_);
      }
      continue;
    }
    if (!on_message) continue;
    if (auto why = on_message(read.header, body, body_read.checksum_ok)) {
      fail(std::move(*why));
      break;
    }
  }
}

void TcpLink::fail(std::string why) {
  if (failed_) return;
  failed_ = true;
  boost::system::error_code ignored;
  socket_.close(ignored);
  if (on_failure_) on_failure_(why);
}

void TcpLink::stop() {
  stopped_ = true;
  close();
}

void TcpLink::close() {
  boost::system::error_code ignored;
  socket_.close(ignored);
}

bool TcpLink::sample_tcp_info() {
  if (!socket_.is_open()) return false;
  auto info = read_tcp_info(socket_.native_handle());
  if (!info) return false;
  rtt_ms_ = info->rtt_ms;
  retransmits_ = info->total_retransmits;
  segments_sent_ = info->data_segments_out;
  return true;
}

}  // namespace hdstream
