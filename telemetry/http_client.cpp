#include "telemetry/http_client.hpp"

#include <optional>

#include <fmt/format.h>
#include <openssl/ssl.h>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include "telemetry/password_check.hpp"

namespace hdstream {
namespace beast = boost::beast;
namespace http = beast::http;

namespace {

// Everything a GET needs lives on the heap, not in a coroutine frame: with GCC 12 and Boost 1.74
// a large awaitable frame reached Asio's recycling allocator with a size that did not match its
// allocation ("free(): invalid size", flagged by -Wmismatched-new-delete). The coroutines below
// take only this state and keep no locals of their own.
struct GetState {
  GetState(const asio::any_io_executor& executor, Endpoint to, std::string path,
           std::chrono::nanoseconds deadline, std::size_t max_body, HttpClientSettings client)
      : server(std::move(to)),
        target(std::move(path)),
        timeout(deadline),
        max_body_bytes(max_body),
        settings(std::move(client)),
        resolver(executor) {
    if (settings.tls) {
      tls.emplace(executor, *settings.tls);
    } else {
      plain.emplace(executor);
    }
  }
  beast::tcp_stream& lowest() { return tls ? beast::get_lowest_layer(*tls) : *plain; }
  // Records what went wrong at `step`, as the reply.
  void fail(std::string_view step) {
    reply.error = fmt::format("{} {}: {}", step, server.to_string(), ec.message());
  }

  Endpoint server;
  std::string target;
  std::chrono::nanoseconds timeout;
  std::size_t max_body_bytes;
  HttpClientSettings settings;
  tcp::resolver resolver;
  std::optional<beast::tcp_stream> plain;
  std::optional<beast::ssl_stream<beast::tcp_stream>> tls;
  beast::flat_buffer buffer;
  http::request<http::empty_body> request;
  http::response_parser<http::string_body> parser;
  error_code ec;
  HttpReply reply;
};

// Sends the request and reads the reply on `stream` (plain or TLS) into state.reply.
template <class Stream>
awaitable<void> exchange(Stream& stream, GetState& state) {
  co_await http::async_write(stream, state.request, nothrow(state.ec));
  if (state.ec) co_return state.fail("cannot send a request to");

  // The header first: a reply that announces more than we take is refused before its body is
  // read (seen with Boost 1.74: async_read let a Content-Length past body_limit through).
  state.parser.body_limit(state.max_body_bytes);
  co_await http::async_read_header(stream, state.buffer, state.parser, nothrow(state.ec));
  if (state.ec) co_return state.fail("bad reply from");
  if (const auto length = state.parser.content_length(); length && *length > state.max_body_bytes) {
    state.ec = http::error::body_limit;
    co_return state.fail("reply too large from");
  }
  co_await http::async_read(stream, state.buffer, state.parser, nothrow(state.ec));
  if (!state.ec && state.parser.get().body().size() > state.max_body_bytes) {
    state.ec = http::error::body_limit;
  }
  if (state.ec) co_return state.fail("bad reply from");
  state.reply.status = state.parser.get().result_int();
  state.reply.body = std::move(state.parser.get().body());
}

// The TLS handshake, the server's certificate checked for the name it must carry (also sent as
// SNI): `server_name`, else the host polled.
awaitable<void> handshake(GetState& state) {
  const std::string& name =
      state.settings.server_name.empty() ? state.server.host : state.settings.server_name;
  SSL_set_tlsext_host_name(state.tls->native_handle(), name.c_str());
  if (state.settings.verify_name) {
    state.tls->set_verify_callback(asio::ssl::host_name_verification(name));
  }
  co_await state.tls->async_handshake(asio::ssl::stream_base::client, nothrow(state.ec));
  if (state.ec) state.fail("TLS handshake failed with");
}

awaitable<HttpReply> run_get(std::unique_ptr<GetState> state) {
  auto results = co_await state->resolver.async_resolve(
      state->server.host, std::to_string(state->server.port), nothrow(state->ec));
  if (state->ec) {
    state->fail("cannot resolve");
    co_return std::move(state->reply);
  }
  // One deadline covers connect, handshake, request and reply: a stuck peer cannot stall the
  // poller.
  state->lowest().expires_after(
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(state->timeout));
  co_await state->lowest().async_connect(results, nothrow(state->ec));
  if (state->ec) {
    state->fail("cannot connect to");
    co_return std::move(state->reply);
  }
  state->request = http::request<http::empty_body>{http::verb::get, state->target, 11};
  state->request.set(http::field::host, state->server.to_string());
  state->request.set(http::field::user_agent, "hdstream-monitor");
  state->request.set(http::field::connection, "close");
  if (!state->settings.authorization.empty()) {
    state->request.set(http::field::authorization, state->settings.authorization);
  }
  if (state->tls) {
    co_await handshake(*state);
    if (state->reply.error.empty()) co_await exchange(*state->tls, *state);
  } else {
    co_await exchange(*state->plain, *state);
  }
  state->lowest().socket().shutdown(tcp::socket::shutdown_both, state->ec);
  co_return std::move(state->reply);
}

}  // namespace

HttpClientSettings http_client_settings(const HttpClientConfig& config) {
  HttpClientSettings settings;
  if (config.basic_auth) {
    settings.authorization =
        basic_authorization({config.basic_auth->username, config.basic_auth->password});
  }
  if (!config.tls) return settings;
  auto context = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_client);
  context->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                       asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
                       asio::ssl::context::no_tlsv1_1);
  error_code ec;
  if (config.tls->ca_file.empty()) {
    context->set_default_verify_paths(ec);
  } else {
    context->load_verify_file(config.tls->ca_file.string(), ec);
  }
  if (ec) {
    throw WebConfigError(fmt::format("ca_file {}: not a PEM certificate ({})",
                                     config.tls->ca_file.string(), ec.message()));
  }
  context->set_verify_mode(config.tls->insecure_skip_verify ? asio::ssl::verify_none
                                                            : asio::ssl::verify_peer);
  settings.tls = std::move(context);
  settings.server_name = config.tls->server_name;
  settings.verify_name = !config.tls->insecure_skip_verify;
  return settings;
}

awaitable<HttpReply> http_get(asio::any_io_executor executor, Endpoint server, std::string target,
                              std::chrono::nanoseconds timeout, std::size_t max_body_bytes) {
  return http_get(std::move(executor), std::move(server), std::move(target), timeout,
                  max_body_bytes, HttpClientSettings{});
}

awaitable<HttpReply> http_get(asio::any_io_executor executor, Endpoint server, std::string target,
                              std::chrono::nanoseconds timeout, std::size_t max_body_bytes,
                              HttpClientSettings settings) {
  return run_get(std::make_unique<GetState>(executor, std::move(server), std::move(target), timeout,
                                            max_body_bytes, std::move(settings)));
}

}  // namespace hdstream
