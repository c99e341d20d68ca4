#include "transport/server_handshake.hpp"

#include <memory>
#include <system_error>
#include <vector>

#include <sys/resource.h>

#include <algorithm>
#include <map>
#include <mutex>

#include "common/log.hpp"
#include "common/log_rate_limit.hpp"
#include "common/units.hpp"
#include "transport/auth_handshake.hpp"
#include "transport/message_io.hpp"

namespace hdstream {
namespace {
// Descriptors an established stream may need: its sub-connections on both legs, plus its
// recordings, decoder and sound.
constexpr std::uint64_t kDescriptorsPerStream = kMaxSubconnections * kMaxLegs + 8;
// The process's own: logs, the telemetry listener, GStreamer's and libsrt's.
constexpr std::uint64_t kDescriptorsForTheProcess = 64;
constexpr std::uint64_t kMinPending = 16;
constexpr std::uint64_t kMaxPending = 1024;

// The lines a stranger can provoke before it has proved anything, held back in a flood and
// counted; one limit per transport's log, shared by all its connections.
std::optional<std::uint64_t> admit_stranger_line(const std::string& component) {
  static std::mutex mutex;
  static std::map<std::string, LogRateLimit> limits;
  std::lock_guard lock(mutex);
  auto it = limits
                .try_emplace(component, 10, std::chrono::seconds(10), logger(component),
                             "lines about connections that proved nothing")
                .first;
  return it->second.admit();
}
}  // namespace

TcpListenerOptions feed_listener_options(std::size_t streams, std::uint64_t nofile) {
  const std::uint64_t reserve = kDescriptorsForTheProcess + streams * kDescriptorsPerStream;
  const std::uint64_t spare = nofile > reserve ? (nofile - reserve) / 2 : 0;
  TcpListenerOptions options;
  options.max_pending = std::clamp(spare, kMinPending, kMaxPending);
  options.max_pending_per_address = std::min<std::uint64_t>(
      options.max_pending, std::uint64_t{kMaxSubconnections} * kMaxLegs * streams);
  return options;
}

TcpListenerOptions feed_listener_options(std::size_t streams) {
  rlimit limit{};
  ::getrlimit(RLIMIT_NOFILE, &limit);
  return feed_listener_options(streams,
                               limit.rlim_cur == RLIM_INFINITY ? kMaxPending * 4 : limit.rlim_cur);
}

void listen_for_feeds(tcp::acceptor& acceptor, const Endpoint& listen, std::size_t streams,
                      bool has_key, const std::string& component) {
  boost::system::error_code ec;
  auto address = asio::ip::make_address(listen.host, ec);
  if (ec) {
    tcp::resolver resolver(acceptor.get_executor());
    auto results = resolver.resolve(listen.host, std::to_string(listen.port));
    address = results.begin()->endpoint().address();
  }
  const tcp::endpoint endpoint(address, listen.port);
  try {
    acceptor.open(endpoint.protocol());
    acceptor.set_option(tcp::acceptor::reuse_address(true));
    acceptor.bind(endpoint);
    acceptor.listen();
  } catch (const boost::system::system_error& error) {
    throw std::system_error(error.code(), "cannot listen on " + listen.to_string());
  }
  const auto local = acceptor.local_endpoint();
  const std::string where = Endpoint{local.address().to_string(), local.port()}.to_string();
  logger(component)->info("listening on {} for {} {} stream(s)", where, streams, component);
  if (!has_key && !local.address().is_loopback()) {
    logger(component)->warn(
        "listening on {} without --key-file: any host that reaches it can send a feed "
        "(docs/SECURITY.md)",
        where);
  }
}

std::string peer_name(const tcp::socket& socket) {
  boost::system::error_code ec;
  auto peer = socket.remote_endpoint(ec);
  return ec ? std::string("unknown peer")
            : Endpoint{peer.address().to_string(), peer.port()}.to_string();
}

awaitable<HelloIntake> read_hello(tcp::socket& socket, std::chrono::nanoseconds timeout,
                                  std::string peer, TransportKind transport, std::string component,
                                  std::optional<PresharedKey> key) {
  auto log = logger(component);
  // Until a peer has sent a valid HELLO (and, with a key, proved it holds the key) it gets
  // 48 + 4096 bytes of memory and `timeout`.
  asio::steady_timer watchdog(socket.get_executor(), timeout);
  auto timed_out = std::make_shared<bool>(false);
  watchdog.async_wait([&socket, timed_out](boost::system::error_code ec) {
    if (!ec) {
      *timed_out = true;
      boost::system::error_code ignored;
      socket.close(ignored);
    }
  });
  std::vector<std::byte> body;
  auto read = co_await read_header(socket);
  BodyRead body_read;
  if (!read.error) body_read = co_await read_control_body(socket, read.header, body);

  HelloIntake intake;
  // Why the connection closes before a HELLO: one line, unless a flood holds it back.
  auto closing = [&](const std::string& why) {
    if (auto held_back = admit_stranger_line(component)) {
      log->warn("closing {}: {}{}", peer, why, held_back_note(*held_back));
    }
  };
  if (*timed_out) {
    closing(fmt::format("no handshake within {}", format_duration(timeout)));
    co_return intake;
  }
  if (read.detail != HeaderError::none) {
    closing(std::string(to_string(read.detail)));
    co_return intake;
  }
  if (read.error || body_read.error) {
    const auto& ec = read.error ? read.error : body_read.error;
    closing("connection ended before a complete HELLO: " + ec.message());
    co_return intake;
  }
  const bool intact_hello = read.header.type == MessageType::hello && body_read.checksum_ok;
  if (intact_hello && key) {
    // Before the HELLO is even looked at: a stranger learns nothing of what this receiver takes.
    auto check = co_await demand_auth(socket, *key, read.header.stream_id, body);
    if (!check.ok) {
      intake.stream_id = read.header.stream_id;
      if (check.connection_lost) {
        if (auto held_back = admit_stranger_line(component)) {
          log->warn("refused feed from {} (stream {}): {}: {}{}", peer, intake.stream_id,
                    to_string(AckStatus::unauthorized),
                    *timed_out ? "no answer to the challenge in time"
                               : "the sender left without answering the challenge (no --key-file?)",
                    held_back_note(*held_back));
        }
      } else {
        intake.reply = true;
        intake.status = AckStatus::unauthorized;
        intake.reason = std::move(check.problem);
      }
      co_return intake;
    }
  }
  watchdog.cancel();
  intake = examine_hello(read.header, body, body_read.checksum_ok, transport);
  if (!intake.reply) closing(intake.reason);
  co_return intake;
}

awaitable<bool> send_hello_ack(tcp::socket& socket, std::uint16_t stream_id, AckStatus status,
                               std::string reason, const std::string& peer,
                               const std::string& component, RefusalLog log) {
  if (status != AckStatus::accepted && log != RefusalLog::none) {
    const auto held_back = log == RefusalLog::proven ? std::optional<std::uint64_t>(0)
                                                     : admit_stranger_line(component);
    if (held_back) {
      logger(component)->warn("refused feed from {} (stream {}): {}: {}{}", peer, stream_id,
                              to_string(status), reason, held_back_note(*held_back));
    }
  }
  auto ack = encode_hello_ack(stream_id, HelloAck{status, std::move(reason)});
  error_code ec;
  co_await asio::async_write(socket, asio::buffer(ack), nothrow(ec));
  co_return !ec;
}

}  // namespace hdstream
