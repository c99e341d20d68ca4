#include "transport/srt/srt_socket.hpp"

#include <srt/logging_api.h>
#include <srt/srt.h>

#include <netdb.h>
#include <sys/syslog.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>
#include <string_view>
#include <system_error>
#include <utility>

#include <fmt/format.h>

#include "common/log.hpp"
#include "transport/srt/srt_stream_id.hpp"

namespace hdstream {
namespace {

std::shared_ptr<spdlog::logger> log() {
  return logger("srt");
}

constexpr int kIoTimeoutMs = 100;
constexpr int kConnectTimeoutMs = 1000;

[[noreturn]] void throw_last(const std::string& what, int socket = SRT_INVALID_SOCK) {
  const int code = srt_getlasterror(nullptr);
  const int reject = socket != SRT_INVALID_SOCK ? srt_getrejectreason(socket) : 0;
  std::string reason = srt_getlasterror_str();
  if (reject > 0 && code == SRT_ECONNREJ) reason = srt_rejectreason_str(reject);
  throw SrtError(fmt::format("{}: {}", what, reason), code, reject);
}

template <typename T>
void set(int socket, SRT_SOCKOPT option, T value, const char* name) {
  if (srt_setsockflag(socket, option, &value, sizeof value) == SRT_ERROR) {
    throw_last(fmt::format("setting {}", name));
  }
}

// libsrt logs from its own threads; only refusals are worth an operator's attention.
void srt_log_handler(void*, int level, const char*, int, const char*, const char* message) {
  const std::string_view text(message);
  if (auto at = text.find("rsp(REJECT): "); at != std::string_view::npos) {
    auto reason = text.substr(at + 13);
    while (!reason.empty() && (reason.back() == '\n' || reason.back() == ' '))
      reason.remove_suffix(1);
    // "1010 - Incorrect passphrase": the reason first, libsrt's code after it.
    std::string_view code;
    if (auto dash = reason.find(" - "); dash != std::string_view::npos) {
      code = reason.substr(0, dash);
      reason = reason.substr(dash + 3);
    }
    const char* hint = reason.find("passphrase") != std::string_view::npos
                           ? "; check --key-file on both ends"
                       : reason.find("Packet Filter") != std::string_view::npos  // 1014
                           ? "; check --srt-fec on both ends"
                           : "";
    log()->warn("refused an SRT caller: {} (libsrt reject code {}){}", reason, code, hint);
    return;
  }
  if (level <= LOG_ERR) {
    log()->debug("libsrt: {}", text);
  }
}

sockaddr_storage resolve(const Endpoint& endpoint, int& length) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_DGRAM;
  hints.ai_flags = endpoint.host.empty() ? AI_PASSIVE : 0;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(endpoint.port);
  const char* host = endpoint.host.empty() ? nullptr : endpoint.host.c_str();
  if (const int rc = getaddrinfo(host, port.c_str(), &hints, &found); rc != 0 || !found) {
    throw SrtError(fmt::format("cannot resolve '{}': {}", endpoint.host, gai_strerror(rc)), 0);
  }
  sockaddr_storage storage{};
  std::memcpy(&storage, found->ai_addr, found->ai_addrlen);
  length = static_cast<int>(found->ai_addrlen);
  freeaddrinfo(found);
  return storage;
}

int configured(const SrtPlan& plan) {
  ensure_srt_started();
  const int socket = srt_create_socket();
  if (socket == SRT_INVALID_SOCK) throw_last("creating an SRT socket");
  try {
    set<int>(socket, SRTO_TRANSTYPE, SRTT_LIVE, "SRTO_TRANSTYPE");
    set<int>(socket, SRTO_PAYLOADSIZE, plan.payload_bytes, "SRTO_PAYLOADSIZE");
    set<int>(socket, SRTO_LATENCY,
             static_cast<int>(
                 std::chrono::duration_cast<std::chrono::milliseconds>(plan.latency).count()),
             "SRTO_LATENCY");
    set<int>(socket, SRTO_SNDTIMEO, kIoTimeoutMs, "SRTO_SNDTIMEO");
    set<int>(socket, SRTO_RCVTIMEO, kIoTimeoutMs, "SRTO_RCVTIMEO");
    set<int>(socket, SRTO_CONNTIMEO, kConnectTimeoutMs, "SRTO_CONNTIMEO");
    if (plan.rate_bps > 0) {
      // Wire rate of the feed (our 48-byte header rides in every packet), and a ceiling with
      // room for retransmissions and frame bursts.
      const double wire_bytes_per_s = static_cast<double>(plan.rate_bps) / 8.0 *
                                      kSrtMaxPayloadBytes / (kSrtMaxPayloadBytes - 48.0);
      set<std::int64_t>(socket, SRTO_INPUTBW, static_cast<std::int64_t>(wire_bytes_per_s),
                        "SRTO_INPUTBW");
      // FEC packets ride on top of the feed's (libsrt applies MAXBW to both).
      const double fec = plan.fec ? plan.fec->overhead() : 0.0;
      set<std::int64_t>(socket, SRTO_MAXBW,
                        static_cast<std::int64_t>(1.5 * (1 + fec) * wire_bytes_per_s),
                        "SRTO_MAXBW");
    }
    const SrtBufferSizes sizes = plan_srt_buffers(plan);
    set<int>(socket, SRTO_FC, sizes.flow_window_packets, "SRTO_FC");
    set<int>(socket, SRTO_RCVBUF, sizes.receive_buffer_bytes, "SRTO_RCVBUF");
    set<int>(socket, SRTO_UDP_RCVBUF, sizes.udp_buffer_bytes, "SRTO_UDP_RCVBUF");
    set<int>(socket, SRTO_UDP_SNDBUF, sizes.udp_buffer_bytes, "SRTO_UDP_SNDBUF");
    if (plan.fec) {
      // After SRTO_PAYLOADSIZE: libsrt refuses a filter whose header does not fit beside it.
      const std::string filter = plan.fec->filter();
      if (srt_setsockflag(socket, SRTO_PACKETFILTER, filter.data(),
                          static_cast<int>(filter.size())) == SRT_ERROR) {
        throw_last(fmt::format("setting SRTO_PACKETFILTER '{}'", filter));
      }
    }
    if (!plan.passphrase.empty()) {
      if (srt_setsockflag(socket, SRTO_PASSPHRASE, plan.passphrase.data(),
                          static_cast<int>(plan.passphrase.size())) == SRT_ERROR) {
        throw_last("setting SRTO_PASSPHRASE (10 to 79 characters)");
      }
      set<int>(socket, SRTO_PBKEYLEN, int{plan.key_length_bytes}, "SRTO_PBKEYLEN");
    }
  } catch (...) {
    srt_close(socket);
    throw;
  }
  return socket;
}

// libsrt's listen callback, on its receive thread, before the new connection's buffers exist:
// an hdstream caller's announced plan sizes them. Never refuses a caller.
int size_for_caller(void* opaque, SRTSOCKET accepted, int, const sockaddr*, const char* stream_id) {
  const auto& listener = *static_cast<const SrtPlan*>(opaque);
  const auto caller = decode_srt_stream_id(stream_id ? stream_id : "");
  if (!caller) return 0;  // another tool, or an id we do not trust: the listener's sizing
  SrtPlan plan = listener;
  plan.rate_bps = caller->rate_bps;
  plan.latency = std::max<std::chrono::nanoseconds>(listener.latency, caller->latency);
  plan.rtt = caller->rtt;
  const SrtBufferSizes sizes = plan_srt_buffers(plan);
  if (srt_setsockflag(accepted, SRTO_FC, &sizes.flow_window_packets, sizeof(int)) == SRT_ERROR ||
      srt_setsockflag(accepted, SRTO_RCVBUF, &sizes.receive_buffer_bytes, sizeof(int)) ==
          SRT_ERROR) {
    log()->warn("cannot size the receive buffers for a caller's {:.0f} Mbps at {} ms: {}",
                static_cast<double>(caller->rate_bps) / 1e6, caller->latency.count(),
                srt_getlasterror_str());
  }
  return 0;
}

// What an accepted socket's caller announced in SRTO_STREAMID, if it is an hdstream id.
std::optional<SrtCallerPlan> announced_by(int socket) {
  char id[513] = {};  // SRTO_STREAMID holds at most 512 bytes
  int length = sizeof id - 1;
  if (srt_getsockflag(socket, SRTO_STREAMID, id, &length) == SRT_ERROR) return std::nullopt;
  return decode_srt_stream_id(std::string_view(id, static_cast<std::size_t>(length)));
}

}  // namespace

bool SrtError::wrong_passphrase() const {
  return reject_reason_ == SRT_REJ_BADSECRET;
}

bool SrtError::filter_conflict() const {
  return reject_reason_ == SRT_REJ_FILTER;
}

SrtBufferSizes plan_srt_buffers(const SrtPlan& plan) {
  const double seconds = std::chrono::duration<double>(plan.rtt + plan.latency).count();
  const double bytes = static_cast<double>(plan.rate_bps) / 8.0 * seconds;
  // Twice the bytes in flight, at most the plan's ceiling (1 GB, or a receiver's share of its
  // memory: the plan may come from a remote caller), never below libsrt's defaults (25600
  // packets, 8 MiB).
  const double buffered = std::min({2 * bytes, 1e9, static_cast<double>(plan.max_buffered_bytes)});
  SrtBufferSizes sizes;
  sizes.flow_window_packets =
      std::max(25600, static_cast<int>(std::ceil(buffered / plan.payload_bytes)));
  // libsrt refuses a receive buffer above the flow window's worth of packets.
  sizes.receive_buffer_bytes = static_cast<int>(
      std::min<std::int64_t>(std::max<std::int64_t>(8 << 20, static_cast<std::int64_t>(buffered)),
                             std::int64_t{sizes.flow_window_packets} * (kSrtMaxPayloadBytes - 28)));
  sizes.udp_buffer_bytes = sizes.receive_buffer_bytes;
  return sizes;
}

void ensure_srt_started() {
  static std::once_flag once;
  std::call_once(once, [] {
    srt_startup();
    srt_setloglevel(LOG_WARNING);
    srt_setloghandler(nullptr, srt_log_handler);
    std::atexit([] { srt_cleanup(); });
  });
}

SrtSocket SrtSocket::caller(const SrtPlan& plan) {
  SrtSocket socket(configured(plan));
  if (plan.rate_bps > 0) {
    const std::string id = encode_srt_stream_id(
        {plan.rate_bps, std::chrono::duration_cast<std::chrono::milliseconds>(plan.latency),
         std::chrono::duration_cast<std::chrono::milliseconds>(plan.rtt), plan.probe, plan.leg});
    if (srt_setsockflag(socket.socket_, SRTO_STREAMID, id.data(), static_cast<int>(id.size())) ==
        SRT_ERROR) {
      throw_last("setting SRTO_STREAMID");
    }
  }
  return socket;
}

SrtSocket SrtSocket::listener(const SrtPlan& plan, const Endpoint& local) {
  SrtSocket socket(configured(plan));
  int length = 0;
  const auto address = resolve(local, length);
  if (srt_bind(socket.socket_, reinterpret_cast<const sockaddr*>(&address), length) == SRT_ERROR) {
    throw_last(fmt::format("cannot listen on {} (UDP)", local.to_string()));
  }
  socket.listener_plan_ = std::make_unique<SrtPlan>(plan);
  if (srt_listen_callback(socket.socket_, size_for_caller, socket.listener_plan_.get()) ==
      SRT_ERROR) {
    throw_last("setting the SRT listen callback");
  }
  socket.accept_epoll_ = srt_epoll_create();
  const int events = SRT_EPOLL_IN | SRT_EPOLL_ERR;
  if (socket.accept_epoll_ < 0 ||
      srt_epoll_add_usock(socket.accept_epoll_, socket.socket_, &events) == SRT_ERROR) {
    throw_last(fmt::format("cannot watch the listener on {} (UDP)", local.to_string()));
  }
  if (srt_listen(socket.socket_, kSrtListenBacklog) == SRT_ERROR) {
    throw_last(fmt::format("cannot listen on {} (UDP)", local.to_string()));
  }
  return socket;
}

SrtSocket& SrtSocket::operator=(SrtSocket&& other) noexcept {
  if (this != &other) {
    close();
    socket_ = std::exchange(other.socket_, -1);
    accept_epoll_ = std::exchange(other.accept_epoll_, -1);
    listener_plan_ = std::move(other.listener_plan_);
  }
  return *this;
}

void SrtSocket::connect(const Endpoint& remote) {
  int length = 0;
  const auto address = resolve(remote, length);
  if (srt_connect(socket_, reinterpret_cast<const sockaddr*>(&address), length) == SRT_ERROR) {
    throw_last(fmt::format("SRT connection to {} failed", remote.to_string()), socket_);
  }
}

void SrtSocket::bind_source(const std::string& source) {
  int length = 0;
  const auto address = resolve(Endpoint{source, 0}, length);
  if (srt_bind(socket_, reinterpret_cast<const sockaddr*>(&address), length) == SRT_ERROR) {
    // libsrt's own words ("unable to create/configure SRT socket") hide the reason the
    // operator needs: the system's, e.g. "Cannot assign requested address".
    int system_error = 0;
    const int code = srt_getlasterror(&system_error);
    if (system_error == 0) throw_last(fmt::format("cannot send from {}", source), socket_);
    throw SrtError(fmt::format("cannot send from {}: {}", source,
                               std::generic_category().message(system_error)),
                   code);
  }
}

std::optional<SrtSocket> SrtSocket::accept(std::chrono::milliseconds timeout) {
  SRTSOCKET ready[1];
  int ready_count = 1;
  const int waited = srt_epoll_wait(accept_epoll_, ready, &ready_count, nullptr, nullptr,
                                    timeout.count(), nullptr, nullptr, nullptr, nullptr);
  if (waited <= 0) return std::nullopt;
  sockaddr_storage peer{};
  int length = sizeof peer;
  const int accepted = srt_accept(socket_, reinterpret_cast<sockaddr*>(&peer), &length);
  if (accepted == SRT_INVALID_SOCK) throw_last("accepting an SRT caller");
  return SrtSocket(accepted);
}

SrtIo SrtSocket::send(std::span<const std::byte> message) {
  const int sent = srt_sendmsg2(socket_, reinterpret_cast<const char*>(message.data()),
                                static_cast<int>(message.size()), nullptr);
  if (sent != SRT_ERROR) return SrtIo::ok;
  const int code = srt_getlasterror(nullptr);
  return code == SRT_EASYNCSND || code == SRT_ETIMEOUT ? SrtIo::timeout : SrtIo::closed;
}

SrtIo SrtSocket::receive(std::span<std::byte> buffer, std::size_t& received) {
  const int n = srt_recvmsg2(socket_, reinterpret_cast<char*>(buffer.data()),
                             static_cast<int>(buffer.size()), nullptr);
  if (n == SRT_ERROR) {
    // SRTO_RCVTIMEO expiring in blocking mode reports SRT_ETIMEOUT.
    const int code = srt_getlasterror(nullptr);
    return code == SRT_EASYNCRCV || code == SRT_ETIMEOUT ? SrtIo::timeout : SrtIo::closed;
  }
  received = static_cast<std::size_t>(n);
  return n == 0 ? SrtIo::closed : SrtIo::ok;
}

SrtStats SrtSocket::stats() {
  SRT_TRACEBSTATS raw{};
  SrtStats stats;
  if (srt_bstats(socket_, &raw, 0) == SRT_ERROR) return stats;
  stats.rtt_ms = raw.msRTT;
  stats.sent_packets = static_cast<std::uint64_t>(raw.pktSentTotal);
  stats.sent_retransmits = static_cast<std::uint64_t>(raw.pktRetransTotal);
  stats.received_retransmits = static_cast<std::uint64_t>(raw.pktRcvRetrans);
  stats.send_lost = static_cast<std::uint64_t>(raw.pktSndLossTotal);
  stats.receive_lost = static_cast<std::uint64_t>(raw.pktRcvLossTotal);
  stats.send_dropped = static_cast<std::uint64_t>(raw.pktSndDropTotal);
  stats.receive_dropped = static_cast<std::uint64_t>(raw.pktRcvDropTotal);
  stats.belated = static_cast<std::uint64_t>(raw.pktRcvBelated);
  stats.send_buffer_ms = raw.msSndBuf;
  stats.receive_buffer_ms = raw.msRcvBuf;
  stats.fec_sent = static_cast<std::uint64_t>(raw.pktSndFilterExtraTotal);
  stats.fec_received = static_cast<std::uint64_t>(raw.pktRcvFilterExtraTotal);
  stats.fec_recovered = static_cast<std::uint64_t>(raw.pktRcvFilterSupplyTotal);
  stats.fec_uncorrectable = static_cast<std::uint64_t>(raw.pktRcvFilterLossTotal);
  return stats;
}

std::size_t SrtSocket::unacknowledged_bytes() const {
  std::size_t bytes = 0;
  if (srt_getsndbuffer(socket_, nullptr, &bytes) == SRT_ERROR) return 0;
  return bytes;
}

std::string SrtSocket::packet_filter() const {
  char filter[513] = {};  // SRTO_PACKETFILTER holds at most 512 bytes
  int length = sizeof filter - 1;
  if (srt_getsockflag(socket_, SRTO_PACKETFILTER, filter, &length) == SRT_ERROR) return {};
  return std::string(filter, static_cast<std::size_t>(length));
}

int SrtSocket::payload_bytes() const {
  int bytes = 0;
  int length = sizeof bytes;
  if (srt_getsockflag(socket_, SRTO_PAYLOADSIZE, &bytes, &length) == SRT_ERROR) return 0;
  return bytes;
}

SrtBufferSizes SrtSocket::buffer_sizes() const {
  SrtBufferSizes sizes;
  auto get = [this](SRT_SOCKOPT option, int& value) {
    int length = sizeof value;
    srt_getsockflag(socket_, option, &value, &length);
  };
  get(SRTO_FC, sizes.flow_window_packets);
  get(SRTO_RCVBUF, sizes.receive_buffer_bytes);
  get(SRTO_UDP_RCVBUF, sizes.udp_buffer_bytes);
  return sizes;
}

std::chrono::milliseconds SrtSocket::peer_latency() const {
  int latency_ms = 0;
  int length = sizeof latency_ms;
  if (srt_getsockflag(socket_, SRTO_PEERLATENCY, &latency_ms, &length) == SRT_ERROR) return {};
  return std::chrono::milliseconds(latency_ms);
}

std::uint16_t SrtSocket::local_port() const {
  sockaddr_storage address{};
  int length = sizeof address;
  if (srt_getsockname(socket_, reinterpret_cast<sockaddr*>(&address), &length) == SRT_ERROR)
    return 0;
  if (address.ss_family == AF_INET6) {
    return ntohs(reinterpret_cast<const sockaddr_in6*>(&address)->sin6_port);
  }
  return ntohs(reinterpret_cast<const sockaddr_in*>(&address)->sin_port);
}

std::string SrtSocket::peer() const {
  sockaddr_storage address{};
  int length = sizeof address;
  if (srt_getpeername(socket_, reinterpret_cast<sockaddr*>(&address), &length) == SRT_ERROR) {
    return "unknown peer";
  }
  char host[NI_MAXHOST] = {}, port[NI_MAXSERV] = {};
  getnameinfo(reinterpret_cast<const sockaddr*>(&address), static_cast<socklen_t>(length), host,
              sizeof host, port, sizeof port, NI_NUMERICHOST | NI_NUMERICSERV);
  return fmt::format("{}:{}", host, port);
}

bool SrtSocket::announces_probe() const {
  const auto caller = announced_by(socket_);
  return caller && caller->probe;
}

std::uint8_t SrtSocket::announced_leg() const {
  const auto caller = announced_by(socket_);
  return caller ? caller->leg : 0;
}

void SrtSocket::close() {
  if (accept_epoll_ >= 0) srt_epoll_release(std::exchange(accept_epoll_, -1));
  if (socket_ >= 0) srt_close(std::exchange(socket_, -1));
  listener_plan_.reset();  // srt_close has removed the listener: its callback runs no more
}

void SrtSocket::set_receive_blocking(bool blocking) {
  const bool value = blocking;
  if (srt_setsockflag(socket_, SRTO_RCVSYN, &value, sizeof value) == SRT_ERROR)
    throw_last("setting SRTO_RCVSYN");
}

std::vector<SrtSocket> listen_per_stream(const SrtPlan& plan, Endpoint listen,
                                         std::size_t streams) {
  if (listen.host == "0.0.0.0") listen.host.clear();
  std::vector<SrtSocket> listeners;
  std::uint16_t base_port = listen.port;
  for (std::size_t stream = 0; stream < streams; ++stream) {
    Endpoint local = listen;
    if (stream > 0 || local.port != 0) local.port = static_cast<std::uint16_t>(base_port + stream);
    try {
      listeners.push_back(SrtSocket::listener(plan, local));
    } catch (const SrtError& error) {
      throw std::system_error(std::make_error_code(std::errc::address_in_use), error.what());
    }
    if (stream == 0) base_port = listeners.back().local_port();
  }
  return listeners;
}

}  // namespace hdstream
