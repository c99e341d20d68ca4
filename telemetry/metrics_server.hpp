// Serves /metrics (Prometheus text), /stats.json and /thumbnail?feed=K (a decoded feed's picture,
// JPEG) over HTTP/1.1 with Boost.Beast, on the run's io_context, and takes POST /program?feed=K
// (cut the program output) when asked to.
// Defensive: bounded header size, no request bodies, a deadline per request (slowloris), a cap on
// concurrent connections; a bad client only ever loses its own connection. Who may ask what is
// telemetry/request_guard.hpp's: this server's own name in Host, no other origin, and the control
// key for a cut. With a --web-config (telemetry/web_config.hpp), every connection is TLS and
// every request but a cut (which the control key authorizes) needs a basic_auth_users password.
//   auto server = std::make_shared<MetricsServer>(io, parse_metrics_listen(":9100"), provider);
//   server->start();  ...  server->stop();
#pragma once

#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/asio.hpp"
#include "common/endpoint.hpp"
#include "common/log.hpp"
#include "common/log_rate_limit.hpp"
#include "common/tcp_listener.hpp"
#include "stats/labeled_snapshot.hpp"
#include "telemetry/password_check.hpp"
#include "telemetry/request_guard.hpp"
#include "telemetry/web_config.hpp"

namespace boost::asio::ssl {
class context;
}

namespace hdstream {

struct MetricsServerOptions {
  Endpoint listen{"127.0.0.1", 9100};
  std::string host_label;  // "host" in /stats.json; the machine's hostname by default
  std::chrono::milliseconds refresh{250};           // how often snapshots are re-read
  std::chrono::milliseconds rate_window{1000};      // mbps in /stats.json is over this window
  std::chrono::milliseconds request_timeout{5000};  // whole request, headers included
  std::size_t max_header_bytes = 8 * 1024;
  std::size_t max_connections = 64;
  // Per client address: Prometheus, a monitor and a browser need a few; one client holding
  // connections open cannot lock the others out.
  std::size_t max_connections_per_address = 8;
  std::size_t max_requests_per_connection = 1000;
  // Host names besides the address, and the control key (RequestGuard).
  RequestGuardOptions guard;
  // TLS and basic authentication (--web-config); the default: neither.
  WebConfig web;
  // Passwords being checked at once (each a bcrypt, off the io threads); past it a request with
  // new credentials is answered 503: a guesser cannot queue up the server's CPU.
  std::size_t max_password_checks = 2;
  // POST /program?feed=K: cut the program output to feed K (a remote operator, a script), for a
  // request with the control key. Returns the error to answer with (409), or nothing on success.
  // Unset: 404 (no program output here). Called on the io_context's threads.
  std::function<std::optional<std::string>(int feed)> cut_program;
  // GET /thumbnail?feed=K: feed K's latest thumbnail as a JPEG, or nothing (404) when it has
  // none (not decoded here, or no picture yet). Called on the io_context's threads.
  std::function<std::optional<std::string>(int feed)> thumbnail;
};

// "--metrics-listen" text: ":9100" binds 127.0.0.1:9100 (never all interfaces by accident);
// "HOST:PORT" binds that address. Throws EndpointError.
Endpoint parse_metrics_listen(std::string_view text);

class MetricsServer : public std::enable_shared_from_this<MetricsServer> {
 public:
  // Returns cumulative snapshots (StatsRegistry::read()); called on the io_context's threads.
  using Provider = std::function<std::vector<LabeledSnapshot>()>;

  // Throws WebConfigError when the web config's certificate or key cannot be used.
  MetricsServer(asio::io_context& context, MetricsServerOptions options, Provider provider);
  ~MetricsServer();

  // Binds and starts; throws std::system_error naming the address.
  void start();
  Endpoint local_endpoint() const;
  // Closes the listener, the refresh timer and every connection; safe from any thread.
  void stop();

  // The snapshots as last refreshed, with rates filled in.
  std::vector<LabeledSnapshot> latest() const;

 private:
  awaitable<void> refresh_loop();
  struct Connection;
  struct Responder;  // builds a request's response (telemetry/metrics_server.cpp)
  awaitable<void> serve(Connection* connection);  // kept alive by the listener
  template <class Stream>
  awaitable<void> serve_requests(Stream& stream);
  enum class Authentication { ok, refused, busy };
  awaitable<Authentication> authenticate(std::string_view authorization);
  void refresh();

  asio::io_context& context_;
  MetricsServerOptions options_;
  RequestGuard guard_;
  Provider provider_;
  // Requests a client can repeat.
  LogRateLimit refusals_log_{10, std::chrono::seconds(10), logger("metrics"), "refused requests"};
  LogRateLimit control_log_{20, std::chrono::seconds(10), logger("metrics"),
                            "cuts asked for over HTTP"};
  std::shared_ptr<TcpListener> listener_;  // the accept loop and the open connections
  asio::steady_timer refresh_timer_;
  std::unique_ptr<asio::ssl::context> tls_;  // with a web config's tls_server_config
  PasswordCheck passwords_;
  asio::thread_pool password_pool_{1};  // bcrypt runs here, never on the io threads
  std::atomic<std::size_t> password_checks_{0};
  mutable std::mutex mutex_;  // guards the members below
  std::vector<LabeledSnapshot> latest_;
  std::deque<std::vector<LabeledSnapshot>> history_;  // for rates over rate_window
  bool stopped_ = false;
};

}  // namespace hdstream
