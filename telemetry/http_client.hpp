// A minimal HTTP/1.1 GET with a deadline (Boost.Beast), for polling other hosts' /stats.json.
//   auto reply = co_await http_get(executor, Endpoint{"studio-b", 9100}, "/stats.json", 2s);
//   if (reply.error.empty() && reply.status == 200) parse(reply.body);
#pragma once

#include <chrono>
#include <string>

#include "common/asio.hpp"
#include "common/endpoint.hpp"

namespace hdstream {

struct HttpReply {
  std::string error;  // empty on success; one line naming what went wrong otherwise
  unsigned status = 0;
  std::string body;
};

// Resolves, connects, sends GET, reads the reply (body at most `max_body_bytes`), closes.
awaitable<HttpReply> http_get(asio::any_io_executor executor, Endpoint server, std::string target,
                              std::chrono::nanoseconds timeout,
                              std::size_t max_body_bytes = 8u << 20);

}  // namespace hdstream
