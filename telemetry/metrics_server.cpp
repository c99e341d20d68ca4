#include "telemetry/metrics_server.hpp"

#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <charconv>

#include <fmt/format.h>

#include "common/log.hpp"
#include "common/provenance.hpp"
#include "stats/snapshot_json.hpp"
#include "telemetry/prometheus.hpp"

namespace hdstream {
namespace beast = boost::beast;
namespace http = beast::http;

namespace {
std::shared_ptr<spdlog::logger> log() {
  return logger("metrics");
}

http::response<http::string_body> make_response(http::status status, std::string body,
                                                std::string_view content_type) {
  http::response<http::string_body> response{status, 11};
  response.set(http::field::server, "hdstream");
  response.set(http::field::content_type,
               boost::beast::string_view(content_type.data(), content_type.size()));
  response.set(http::field::cache_control, "no-store");
  response.body() = std::move(body);
  return response;
}

// "feed=K" (K a feed number, 0 to 65535) -> K; anything else -> nullopt.
std::optional<int> feed_in_query(std::string_view query) {
  constexpr std::string_view kKey = "feed=";
  if (!query.starts_with(kKey)) return std::nullopt;
  query.remove_prefix(kKey.size());
  if (query.empty() || query.front() == '-') return std::nullopt;  // from_chars takes "-0"
  int feed = -1;
  const auto [end, error] = std::from_chars(query.data(), query.data() + query.size(), feed);
  if (error != std::errc() || end != query.data() + query.size() || feed < 0 || feed > 65535) {
    return std::nullopt;
  }
  return feed;
}

http::response<http::string_body> refusal_response(const Refusal& refusal) {
  auto response =
      make_response(static_cast<http::status>(refusal.status), refusal.reason + "\n", "text/plain");
  if (refusal.wants_credentials) {
    response.set(http::field::www_authenticate, "Bearer realm=\"hdstream\"");
  }
  return response;
}

// The TLS context of a web config's tls_server_config: its certificate chain and key, no
// protocol older than its min_version. Throws WebConfigError naming the file that is wrong.
std::unique_ptr<asio::ssl::context> tls_context(const WebConfig::Tls& tls) {
  auto context = std::make_unique<asio::ssl::context>(asio::ssl::context::tls_server);
  auto options = asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                 asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
                 asio::ssl::context::no_tlsv1_1 | asio::ssl::context::single_dh_use;
  if (tls.min_version == TlsVersion::tls13) options |= asio::ssl::context::no_tlsv1_2;
  context->set_options(options);
  error_code ec;
  context->use_certificate_chain_file(tls.cert_file.string(), ec);
  if (ec) {
    throw WebConfigError(fmt::format("cert_file {}: not a PEM certificate ({})",
                                     tls.cert_file.string(), ec.message()));
  }
  context->use_private_key_file(tls.key_file.string(), asio::ssl::context::pem, ec);
  if (ec) {
    throw WebConfigError(fmt::format("key_file {}: not the PEM key of cert_file {} ({})",
                                     tls.key_file.string(), tls.cert_file.string(), ec.message()));
  }
  return context;
}

std::string_view header(const http::request<http::empty_body>& request, std::string_view name) {
  const auto value = request[boost::beast::string_view(name.data(), name.size())];
  return {value.data(), value.size()};
}

// POST /program?feed=K from `peer`, past the guard's check(). Every cut asked for over HTTP,
// made or refused, is logged once with who asked (rate-limited: a client can repeat it).
http::response<http::string_body> program_response(const MetricsServerOptions& options,
                                                   const RequestGuard& guard,
                                                   const http::request<http::empty_body>& request,
                                                   std::string_view query, const std::string& peer,
                                                   LogRateLimit& log_limit) {
  if (request.method() != http::verb::post) {
    auto response = make_response(http::status::method_not_allowed, "only POST\n", "text/plain");
    response.set(http::field::allow, "POST");
    return response;
  }
  if (auto refusal = guard.check_control(header(request, "Authorization"))) {
    if (auto held_back = log_limit.admit()) {
      log()->warn("program: refused a cut asked for by {}: {}{}", peer,
                  refusal->status == 401 ? "no control key" : "HTTP control is off",
                  held_back_note(*held_back));
    }
    return refusal_response(*refusal);
  }
  if (!options.cut_program) {
    return make_response(http::status::not_found, "no program output here (--output program)\n",
                         "text/plain");
  }
  const auto feed = feed_in_query(query);
  if (!feed) {
    return make_response(http::status::bad_request, "expected /program?feed=K (a feed number)\n",
                         "text/plain");
  }
  if (auto problem = options.cut_program(*feed)) {
    return make_response(http::status::conflict, *problem + "\n", "text/plain");
  }
  if (auto held_back = log_limit.admit()) {
    log()->info("program: cut to feed {} asked for over HTTP by {}{}", *feed, peer,
                held_back_note(*held_back));
  }
  return make_response(http::status::ok, fmt::format("program: cut to feed {}\n", *feed),
                       "text/plain");
}

// GET /thumbnail?feed=K: the feed's latest thumbnail as a JPEG.
http::response<http::string_body> thumbnail_response(const MetricsServerOptions& options,
                                                     std::string_view query) {
  const auto feed = feed_in_query(query);
  if (!feed) {
    return make_response(http::status::bad_request, "expected /thumbnail?feed=K (a feed number)\n",
                         "text/plain");
  }
  std::optional<std::string> jpeg;
  try {
    if (options.thumbnail) jpeg = options.thumbnail(*feed);
  } catch (const std::exception& error) {
    log()->warn("thumbnail of feed {}: {}", *feed, error.what());
    return make_response(http::status::internal_server_error,
                         fmt::format("cannot encode the picture of feed {}\n", *feed),
                         "text/plain");
  }
  if (!jpeg) {
    return make_response(
        http::status::not_found,
        fmt::format("no picture of feed {} here (not decoded, or none yet)\n", *feed),
        "text/plain");
  }
  return make_response(http::status::ok, std::move(*jpeg), "image/jpeg");
}

}  // namespace

// One client's connection: TLS when the server has a certificate, plain HTTP otherwise (decided
// here, once, so that close() from another thread never meets a stream being replaced).
struct MetricsServer::Connection : TcpSession, std::enable_shared_from_this<Connection> {
  Connection(std::shared_ptr<MetricsServer> owner, tcp::socket socket) : server(std::move(owner)) {
    if (server->tls_) {
      tls.emplace(std::move(socket), *server->tls_);
    } else {
      plain.emplace(std::move(socket));
    }
  }
  awaitable<void> run() override { return server->serve(this); }
  void close() override {
    asio::post(lowest().get_executor(), [self = shared_from_this()] { self->lowest().close(); });
  }
  beast::tcp_stream& lowest() { return tls ? beast::get_lowest_layer(*tls) : *plain; }
  std::shared_ptr<MetricsServer> server;
  std::optional<beast::tcp_stream> plain;
  std::optional<beast::ssl_stream<beast::tcp_stream>> tls;
};

Endpoint parse_metrics_listen(std::string_view text) {
  // Telemetry is bound to loopback unless the operator names an address: counters say a lot
  // about a studio's links, and there is no authentication on /metrics.
  if (!text.empty() && text.front() == ':') {
    Endpoint endpoint = parse_endpoint(text, /*listening=*/true);
    endpoint.host = "127.0.0.1";
    return endpoint;
  }
  return parse_endpoint(text, /*listening=*/true);
}

MetricsServer::MetricsServer(asio::io_context& context, MetricsServerOptions options,
                             Provider provider)
    : context_(context),
      options_(std::move(options)),
      guard_(options_.guard),
      provider_(std::move(provider)),
      listener_(std::make_shared<TcpListener>(
          context, "metrics",
          TcpListenerOptions{.max_sessions = options_.max_connections,
                             .max_sessions_per_address = options_.max_connections_per_address})),
      refresh_timer_(asio::make_strand(context)),
      passwords_(options_.web.basic_auth_users) {
  if (options_.host_label.empty()) options_.host_label = host_name();
  if (options_.web.tls) tls_ = tls_context(*options_.web.tls);
}

MetricsServer::~MetricsServer() = default;

void MetricsServer::start() {
  boost::system::error_code ec;
  auto address = asio::ip::make_address(options_.listen.host, ec);
  if (ec) {
    tcp::resolver resolver(context_);
    auto results = resolver.resolve(options_.listen.host, std::to_string(options_.listen.port), ec);
    if (ec || results.empty()) {
      throw std::system_error(ec, "cannot resolve --metrics-listen " + options_.listen.to_string());
    }
    address = results.begin()->endpoint().address();
  }
  try {
    const tcp::endpoint endpoint(address, options_.listen.port);
    tcp::acceptor& acceptor = listener_->acceptor();
    acceptor.open(endpoint.protocol());
    acceptor.set_option(tcp::acceptor::reuse_address(true));
    acceptor.bind(endpoint);
    acceptor.listen();
  } catch (const boost::system::system_error& error) {
    throw std::system_error(error.code(),
                            "cannot listen for metrics on " + options_.listen.to_string());
  }
  refresh();
  log()->info("serving /metrics, /stats.json and /thumbnail on {}://{}/{}", tls_ ? "https" : "http",
              local_endpoint().to_string(), passwords_.enabled() ? " (basic auth)" : "");
  auto self = shared_from_this();
  listener_->start(
      [self](tcp::socket socket) { return std::make_shared<Connection>(self, std::move(socket)); });
  asio::co_spawn(
      refresh_timer_.get_executor(), [self] { return self->refresh_loop(); }, asio::detached);
}

Endpoint MetricsServer::local_endpoint() const {
  return listener_->local_endpoint();
}

void MetricsServer::refresh() {
  std::vector<LabeledSnapshot> now = provider_();
  std::lock_guard lock(mutex_);
  // Rates over the oldest sample still inside the window: smooth enough to read, fresh enough
  // to follow a feed that stalls.
  const double window_s = std::chrono::duration<double>(options_.rate_window).count();
  auto t_of = [](const std::vector<LabeledSnapshot>& v) {
    return v.empty() ? 0.0 : v.front().snapshot.t;
  };
  while (history_.size() > 1 && t_of(now) - t_of(history_[1]) >= window_s) history_.pop_front();
  if (!history_.empty() && history_.front().size() == now.size()) {
    for (std::size_t i = 0; i < now.size(); ++i) {
      fill_rates(now[i].snapshot, history_.front()[i].snapshot);
    }
  }
  history_.push_back(now);
  latest_ = std::move(now);
}

std::vector<LabeledSnapshot> MetricsServer::latest() const {
  std::lock_guard lock(mutex_);
  return latest_;
}

awaitable<void> MetricsServer::refresh_loop() {
  for (;;) {
    refresh_timer_.expires_after(options_.refresh);
    error_code ec;
    co_await refresh_timer_.async_wait(nothrow(ec));
    {
      std::lock_guard lock(mutex_);
      if (ec || stopped_) co_return;
    }
    refresh();
  }
}

// Answers one request from the client on `socket`, in three steps: the guard's refusal (wrong
// Host, another origin), then, with basic_auth_users, the password's (every path but /program,
// which the control key authorizes), then what was asked for.
struct MetricsServer::Responder {
  using Response = http::response<http::string_body>;

  // The path of a request's target, and its query.
  static std::pair<std::string_view, std::string_view> split(
      const http::request<http::empty_body>& request) {
    const std::string_view target(request.target().data(), request.target().size());
    const auto question = target.find('?');
    return {target.substr(0, question),
            question == std::string_view::npos ? std::string_view() : target.substr(question + 1)};
  }

  static std::string peer_of(const tcp::socket& socket) {
    error_code ec;
    const auto peer = socket.remote_endpoint(ec);
    return ec ? std::string("a client")
              : fmt::format("{}:{}", peer.address().to_string(), peer.port());
  }

  static std::optional<Response> guard(MetricsServer& server,
                                       const http::request<http::empty_body>& request,
                                       const tcp::socket& socket) {
    error_code ec;
    const auto reached = socket.local_endpoint(ec).address().to_string();
    auto refusal = server.guard_.check({.host = header(request, "Host"),
                                        .origin = header(request, "Origin"),
                                        .fetch_site = header(request, "Sec-Fetch-Site")},
                                       reached);
    if (!refusal) return std::nullopt;
    if (auto held_back = server.refusals_log_.admit()) {
      log()->warn("refused {} {} from {}: {}{}", std::string(request.method_string()),
                  split(request).first, peer_of(socket), refusal->reason,
                  held_back_note(*held_back));
    }
    return refusal_response(*refusal);
  }

  static bool needs_password(const MetricsServer& server,
                             const http::request<http::empty_body>& request) {
    return server.passwords_.enabled() && split(request).first != "/program";
  }

  // 401 for a missing or wrong password, 503 while too many others are being checked.
  static Response unauthenticated(MetricsServer& server,
                                  const http::request<http::empty_body>& request, bool busy,
                                  const tcp::socket& socket) {
    if (busy) {
      auto response = make_response(http::status::service_unavailable,
                                    "too many passwords being checked; try again\n", "text/plain");
      response.set(http::field::retry_after, "1");
      return response;
    }
    if (auto held_back = server.refusals_log_.admit()) {
      log()->warn("refused {} {} from {}: {}{}", std::string(request.method_string()),
                  split(request).first, peer_of(socket),
                  request[http::field::authorization].empty() ? "no password" : "wrong password",
                  held_back_note(*held_back));
    }
    auto response =
        make_response(http::status::unauthorized, "a user and password are needed\n", "text/plain");
    response.set(http::field::www_authenticate, "Basic realm=\"hdstream\", charset=\"UTF-8\"");
    return response;
  }

  static Response respond(MetricsServer& server, const http::request<http::empty_body>& request,
                          const tcp::socket& socket) {
    const MetricsServerOptions& options = server.options_;
    const auto [target, query] = split(request);
    const std::string peer = peer_of(socket);
    if (target == "/program") {
      return program_response(options, server.guard_, request, query, peer, server.control_log_);
    }
    if (request.method() != http::verb::get) {
      auto response = make_response(http::status::method_not_allowed, "only GET\n", "text/plain");
      response.set(http::field::allow, "GET");
      return response;
    }
    if (target == "/metrics") {
      return make_response(http::status::ok, prometheus_text(server.latest()),
                           kPrometheusContentType);
    }
    if (target == "/thumbnail") return thumbnail_response(options, query);
    if (target == "/stats.json") {
      return make_response(http::status::ok,
                           stats_document(options.host_label, server.latest()).dump() + "\n",
                           "application/json");
    }
    if (target == "/") {
      return make_response(http::status::ok,
                           "hdstream telemetry: /metrics (Prometheus), /stats.json, "
                           "/thumbnail?feed=K (JPEG); POST /program?feed=K cuts the "
                           "program output\n",
                           "text/plain");
    }
    return make_response(http::status::not_found, "not found\n", "text/plain");
  }
};

namespace {
// bcrypt, on the password thread.
awaitable<bool> verify_password(PasswordCheck& passwords, Credentials credentials) {
  co_return passwords.verify(credentials);
}
}  // namespace

awaitable<MetricsServer::Authentication> MetricsServer::authenticate(
    std::string_view authorization) {
  auto credentials = parse_basic_authorization(authorization);
  if (!credentials) co_return Authentication::refused;
  if (passwords_.remembered(*credentials)) co_return Authentication::ok;
  if (password_checks_.fetch_add(1) >= options_.max_password_checks) {
    --password_checks_;
    co_return Authentication::busy;
  }
  // A plain coroutine, made and spawned in statements of their own: GCC 12 destroys a lambda's
  // captures twice when the lambda is a temporary of a co_await expression.
  auto check = verify_password(passwords_, std::move(*credentials));
  auto checked = asio::co_spawn(password_pool_, std::move(check), asio::use_awaitable);
  const bool good = co_await std::move(checked);
  --password_checks_;
  co_return good ? Authentication::ok : Authentication::refused;
}

awaitable<void> MetricsServer::serve(Connection* connection) {
  if (!connection->tls) {
    co_await serve_requests(*connection->plain);
    co_return;
  }
  auto& stream = *connection->tls;
  // The handshake within a request's deadline: a client that connects and says nothing, or
  // speaks plain HTTP to the TLS port, is closed like a slow request.
  beast::get_lowest_layer(stream).expires_after(options_.request_timeout);
  error_code ec;
  co_await stream.async_handshake(asio::ssl::stream_base::server, nothrow(ec));
  if (ec) {
    log()->debug("closing a client whose TLS handshake failed: {}", ec.message());
    beast::get_lowest_layer(stream).close();
    co_return;
  }
  co_await serve_requests(stream);
}

template <class Stream>
awaitable<void> MetricsServer::serve_requests(Stream& stream) {
  beast::flat_buffer buffer(options_.max_header_bytes + 1024);
  for (std::size_t served = 0; served < options_.max_requests_per_connection; ++served) {
    http::request_parser<http::empty_body> parser;
    parser.header_limit(static_cast<std::uint32_t>(options_.max_header_bytes));
    parser.body_limit(0);
    // One deadline for the whole request: a client trickling bytes (slowloris) is cut off.
    beast::get_lowest_layer(stream).expires_after(options_.request_timeout);
    error_code ec;
    co_await http::async_read(stream, buffer, parser, nothrow(ec));
    if (ec) {
      const bool quiet = ec == http::error::end_of_stream || ec == beast::error::timeout ||
                         ec == asio::error::operation_aborted || ec == asio::error::eof ||
                         ec == asio::error::connection_reset;
      if (!quiet) {
        log()->debug("closing a client after a bad request: {}", ec.message());
        auto bad = make_response(http::status::bad_request, "bad request\n", "text/plain");
        bad.keep_alive(false);
        bad.prepare_payload();
        error_code ignored;
        beast::get_lowest_layer(stream).expires_after(std::chrono::seconds(1));
        co_await http::async_write(stream, bad, nothrow(ignored));
      }
      break;
    }
    const auto& request = parser.get();
    // Built outside the coroutine: its frame stays small (GCC 12 misreads a large one's
    // allocation as mismatched, -Wmismatched-new-delete).
    const tcp::socket& socket = beast::get_lowest_layer(stream).socket();
    auto response = Responder::guard(*this, request, socket);
    if (!response && Responder::needs_password(*this, request)) {
      const auto verdict = co_await authenticate(header(request, "Authorization"));
      if (verdict != Authentication::ok) {
        response =
            Responder::unauthenticated(*this, request, verdict == Authentication::busy, socket);
      }
    }
    if (!response) response = Responder::respond(*this, request, socket);
    response->keep_alive(request.keep_alive());
    response->prepare_payload();
    beast::get_lowest_layer(stream).expires_after(options_.request_timeout);
    co_await http::async_write(stream, *response, nothrow(ec));
    if (ec || !response->keep_alive()) break;
  }
  error_code ignored;
  beast::get_lowest_layer(stream).socket().shutdown(tcp::socket::shutdown_both, ignored);
  beast::get_lowest_layer(stream).close();
}

void MetricsServer::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopped_) return;
    stopped_ = true;
  }
  listener_->stop();
  asio::post(refresh_timer_.get_executor(),
             [self = shared_from_this()] { self->refresh_timer_.cancel(); });
}

}  // namespace hdstream
