#include "transport/tcp_connect.hpp"

#include "transport/auth_handshake.hpp"

#include <linux/sockios.h>
#include <sys/ioctl.h>

#include <algorithm>
#include <vector>

#include "common/clock.hpp"
#include "common/log.hpp"
#include "common/units.hpp"
#include "protocol/handshake.hpp"
#include "transport/message_io.hpp"

namespace hdstream {

awaitable<bool> connect_with_retry(tcp::socket& socket, const Endpoint& destination,
                                   const std::string& source, std::chrono::nanoseconds patience,
                                   const bool& stopped, const std::string& component,
                                   const std::string& label) {
  auto log = logger(component);
  std::optional<tcp::endpoint> local;
  if (!source.empty()) {
    error_code ec;
    const auto address = asio::ip::make_address(source, ec);
    if (ec) {
      log->error("{}: source address '{}' is not an IP address", label, source);
      co_return false;
    }
    local = tcp::endpoint(address, 0);
  }
  auto executor = socket.get_executor();
  tcp::resolver resolver(executor);
  const auto deadline = deadline_after(patience);
  auto backoff = std::chrono::milliseconds(20);
  asio::steady_timer timer(executor);
  std::string last_error;
  while (!stopped) {
    error_code resolve_ec, connect_ec;
    const std::string port = std::to_string(destination.port);
    auto results = co_await resolver.async_resolve(destination.host, port, nothrow(resolve_ec));
    if (resolve_ec) {
      log->error("{}: cannot resolve '{}': {}", label, destination.host, resolve_ec.message());
      co_return false;
    }
    // Each attempt is bounded: on a silent path the kernel would retransmit the SYN with
    // backoff for two minutes, and the path's return would wait for the next retransmission.
    asio::steady_timer attempt(executor, kConnectAttemptTimeout);
    attempt.async_wait([&socket](error_code ec) {
      if (!ec) socket.close(ec);
    });
    for (const auto& entry : results) {
      error_code ignored;
      socket.close(ignored);
      socket.open(entry.endpoint().protocol(), connect_ec);
      if (!connect_ec && local) {
        socket.set_option(tcp::socket::reuse_address(true), ignored);
        socket.bind(*local, connect_ec);
        if (connect_ec) {
          // Not an address of this host (or of the destination's family): no retry helps.
          log->error("{}: cannot send from {}: {}", label, source, connect_ec.message());
          co_return false;
        }
      }
      if (!connect_ec) co_await socket.async_connect(entry.endpoint(), nothrow(connect_ec));
      if (!connect_ec || attempt.expiry() <= asio::steady_timer::clock_type::now()) break;
    }
    const bool timed_out = attempt.expiry() <= asio::steady_timer::clock_type::now();
    attempt.cancel();
    if (!connect_ec) co_return true;
    last_error = timed_out
                     ? fmt::format("no answer within {}", format_duration(kConnectAttemptTimeout))
                     : connect_ec.message();
    if (std::chrono::steady_clock::now() + backoff > deadline) break;
    log->debug("{}: connect to {} failed ({}), retrying in {} ms", label, destination.to_string(),
               last_error, backoff.count());
    timer.expires_after(backoff);
    co_await timer.async_wait(nothrow(connect_ec));
    backoff = std::min(backoff * 2, std::chrono::milliseconds(1000));
  }
  if (!stopped) {
    log->error("{}: cannot connect to {}: {} (gave up after {})", label, destination.to_string(),
               last_error, format_duration(patience));
  }
  co_return false;
}

std::uint64_t tune_sender_socket(tcp::socket& socket, const SenderOptions& options,
                                 const std::string& component, const std::string& label) {
  auto log = logger(component);
  const int fd = socket.native_handle();
  error_code ignored;
  socket.set_option(tcp::no_delay(true), ignored);
  for (const auto& refusal : apply_sender_tuning(fd, options.tuning)) {
    log->warn("{}: {}", label, refusal);
  }
  const auto limits = read_kernel_limits(BufferDirection::send);
  const auto plan = plan_buffer(options.hello.feed.bit_rate_bps, options.expected_rtt, limits);
  const std::uint64_t effective = apply_buffer(fd, BufferDirection::send, plan);
  if (plan.set_bytes && effective < plan.need_bytes) {
    log->warn("{}: send buffer capped at {} bytes; {} x {} needs {}. Fix: {}", label, effective,
              format_rate(static_cast<double>(options.hello.feed.bit_rate_bps)),
              format_duration(options.expected_rtt), plan.need_bytes,
              sysctl_fix(BufferDirection::send, plan.need_bytes, limits));
  }
  set_stall_timeout(fd, stall_timeout(options.expected_rtt));
  log->debug("{}: cc {}, send buffer {}", label, current_congestion_control(fd),
             plan.autotune ? "autotuned" : std::to_string(effective) + " bytes");
  return effective;
}

std::chrono::nanoseconds end_confirmation_patience(tcp::socket& socket,
                                                   const SenderOptions& options) {
  int queued = 0;
  if (::ioctl(socket.native_handle(), SIOCOUTQ, &queued) != 0 || queued < 0) queued = 0;
  // An unpaced (bench) feed has no planned rate: assume a slow 100 Mbps path.
  const double rate_bps =
      std::max<double>(static_cast<double>(options.hello.feed.bit_rate_bps), 100e6);
  const auto drain = std::chrono::duration<double>(queued * 8.0 / rate_bps);
  return options.handshake_timeout + 2 * options.expected_rtt +
         std::chrono::duration_cast<std::chrono::nanoseconds>(drain);
}

awaitable<HandshakeOutcome> client_handshake(tcp::socket& socket, std::span<const std::byte> hello,
                                             std::chrono::nanoseconds timeout,
                                             std::shared_ptr<void> keep_alive,
                                             std::optional<PresharedKey> key) {
  // A silent receiver must not hold the feed forever: the watchdog closes the socket.
  asio::steady_timer watchdog(socket.get_executor(), timeout);
  auto timed_out = std::make_shared<bool>(false);
  watchdog.async_wait([&socket, timed_out, keep_alive](boost::system::error_code ec) {
    if (!ec) {
      *timed_out = true;
      boost::system::error_code ignored;
      socket.close(ignored);
    }
  });
  error_code write_ec;
  co_await asio::async_write(socket, asio::buffer(hello.data(), hello.size()), nothrow(write_ec));
  HeaderRead reply;
  std::vector<std::byte> body;
  BodyRead body_read;
  if (!write_ec) reply = co_await read_header(socket);
  if (!write_ec && !reply.error) body_read = co_await read_control_body(socket, reply.header, body);
  // A receiver with a key answers the HELLO with a CHALLENGE first (transport/auth_handshake).
  HandshakeOutcome outcome;
  outcome.challenged = !write_ec && !reply.error && !body_read.error && body_read.checksum_ok &&
                       reply.header.type == MessageType::challenge;
  std::string auth_problem;
  if (outcome.challenged && !key) {
    auth_problem = "receiver requires authentication: give --key-file with the receiver's key";
  } else if (outcome.challenged) {
    MessageHeader hello_header;
    decode_header(hello, hello_header);
    std::vector<std::byte> hello_body(hello.begin() + kHeaderBytes, hello.end());
    std::vector<std::byte> challenge_body = body;
    auto check = co_await answer_auth(socket, *key, hello_header.stream_id,
                                      std::move(challenge_body), std::move(hello_body));
    auth_problem = check.problem;
    if (check.ok) {
      reply = co_await read_header(socket);
      if (!reply.error) body_read = co_await read_control_body(socket, reply.header, body);
    }
  }
  watchdog.cancel();

  if (!auth_problem.empty() && !*timed_out) {
    outcome.error = auth_problem;
    co_return outcome;
  }
  if (*timed_out) {
    outcome.error = fmt::format("no handshake reply within {}", format_duration(timeout));
    co_return outcome;
  }
  if (write_ec || reply.error || body_read.error) {
    auto ec = write_ec ? write_ec : reply.error ? reply.error : body_read.error;
    outcome.error = reply.detail != HeaderError::none
                        ? fmt::format("bad handshake reply: {}", to_string(reply.detail))
                        : fmt::format("handshake failed: {}", ec.message());
    co_return outcome;
  }
  auto ack = reply.header.type == MessageType::hello_ack && body_read.checksum_ok
                 ? decode_hello_ack(body)
                 : std::nullopt;
  if (!ack) {
    outcome.error = "malformed handshake reply";
    co_return outcome;
  }
  if (ack->status != AckStatus::accepted) {
    const auto sent = decode_hello(std::span(hello).subspan(kHeaderBytes));
    outcome.error = fmt::format("receiver refused the feed: {}{}{}{}", to_string(ack->status),
                                ack->reason.empty() ? "" : ": ", refusal_reason(*ack),
                                sent ? older_receiver_hint(*sent, *ack) : "");
    co_return outcome;
  }
  outcome.accepted = true;
  outcome.receiver = named_receiver(*ack);
  co_return outcome;
}

}  // namespace hdstream
