#include "telemetry/http_client.hpp"

#include <memory>

#include <fmt/format.h>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace hdstream {
namespace beast = boost::beast;
namespace http = beast::http;

namespace {

// Everything a GET needs lives on the heap, not in the coroutine frame: with GCC 12 and
// Boost 1.74 a large awaitable frame reached Asio's recycling allocator with a size that did
// not match its allocation ("free(): invalid size", flagged by -Wmismatched-new-delete).
struct GetState {
  explicit GetState(const asio::any_io_executor& executor) : resolver(executor), stream(executor) {}
  tcp::resolver resolver;
  beast::tcp_stream stream;
  beast::flat_buffer buffer;
  http::request<http::empty_body> request;
  http::response_parser<http::string_body> parser;
};

HttpReply failure(std::string_view step, const Endpoint& server, const error_code& ec) {
  HttpReply reply;
  reply.error = fmt::format("{} {}: {}", step, server.to_string(), ec.message());
  return reply;
}

}  // namespace

awaitable<HttpReply> http_get(asio::any_io_executor executor, Endpoint server, std::string target,
                              std::chrono::nanoseconds timeout, std::size_t max_body_bytes) {
  auto state = std::make_unique<GetState>(executor);
  error_code ec;
  auto results =
      co_await state->resolver.async_resolve(server.host, std::to_string(server.port), nothrow(ec));
  if (ec) co_return failure("cannot resolve", server, ec);
  // One deadline covers connect, request and reply: a stuck peer cannot stall the poller.
  state->stream.expires_after(
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(timeout));
  co_await state->stream.async_connect(results, nothrow(ec));
  if (ec) co_return failure("cannot connect to", server, ec);

  state->request = http::request<http::empty_body>{http::verb::get, target, 11};
  state->request.set(http::field::host, server.to_string());
  state->request.set(http::field::user_agent, "hdstream-monitor");
  state->request.set(http::field::connection, "close");
  co_await http::async_write(state->stream, state->request, nothrow(ec));
  if (ec) co_return failure("cannot send a request to", server, ec);

  // The header first: a reply that announces more than we take is refused before its body is
  // read (seen with Boost 1.74: async_read let a Content-Length past body_limit through).
  state->parser.body_limit(max_body_bytes);
  co_await http::async_read_header(state->stream, state->buffer, state->parser, nothrow(ec));
  if (ec) co_return failure("bad reply from", server, ec);
  if (const auto length = state->parser.content_length(); length && *length > max_body_bytes) {
    co_return failure("reply too large from", server,
                      http::make_error_code(http::error::body_limit));
  }
  co_await http::async_read(state->stream, state->buffer, state->parser, nothrow(ec));
  if (!ec && state->parser.get().body().size() > max_body_bytes) ec = http::error::body_limit;
  if (ec) co_return failure("bad reply from", server, ec);
  HttpReply reply;
  reply.status = state->parser.get().result_int();
  reply.body = std::move(state->parser.get().body());
  state->stream.socket().shutdown(tcp::socket::shutdown_both, ec);
  co_return reply;
}

}  // namespace hdstream
