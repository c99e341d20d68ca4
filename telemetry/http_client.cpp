#include "telemetry/http_client.hpp"

#include <fmt/format.h>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace hdstream {
namespace beast = boost::beast;
namespace http = beast::http;

awaitable<HttpReply> http_get(asio::any_io_executor executor, Endpoint server, std::string target,
                              std::chrono::nanoseconds timeout, std::size_t max_body_bytes) {
  HttpReply reply;
  auto failed = [&](std::string_view step, const error_code& ec) {
    reply.error = fmt::format("{} {}: {}", step, server.to_string(), ec.message());
    return reply;
  };
  tcp::resolver resolver(executor);
  beast::tcp_stream stream(executor);
  error_code ec;
  auto results =
      co_await resolver.async_resolve(server.host, std::to_string(server.port), nothrow(ec));
  if (ec) co_return failed("cannot resolve", ec);
  // One deadline covers connect, request and reply: a stuck peer cannot stall the poller.
  stream.expires_after(std::chrono::duration_cast<std::chrono::steady_clock::duration>(timeout));
  co_await stream.async_connect(results, nothrow(ec));
  if (ec) co_return failed("cannot connect to", ec);

  http::request<http::empty_body> request{http::verb::get, target, 11};
  request.set(http::field::host, server.to_string());
  request.set(http::field::user_agent, "hdstream-monitor");
  request.set(http::field::connection, "close");
  co_await http::async_write(stream, request, nothrow(ec));
  if (ec) co_return failed("cannot send a request to", ec);

  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(max_body_bytes);
  co_await http::async_read(stream, buffer, parser, nothrow(ec));
  if (ec) co_return failed("bad reply from", ec);
  reply.status = parser.get().result_int();
  reply.body = std::move(parser.get().body());
  error_code ignored;
  stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
  co_return reply;
}

}  // namespace hdstream
