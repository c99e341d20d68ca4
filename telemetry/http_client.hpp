// A minimal HTTP/1.1 GET with a deadline (Boost.Beast), for polling other hosts' /stats.json;
// over TLS and with basic auth when an --http-config says so (telemetry/web_config.hpp).
//   auto reply = co_await http_get(executor, Endpoint{"studio-b", 9100}, "/stats.json", 2s);
//   if (reply.error.empty() && reply.status == 200) parse(reply.body);
//   auto settings = http_client_settings(load_http_client_config("http.yml"));   // HTTPS
//   auto reply = co_await http_get(executor, server, "/stats.json", 2s, 8 << 20, settings);
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "common/asio.hpp"
#include "common/endpoint.hpp"
#include "telemetry/web_config.hpp"

namespace boost::asio::ssl {
class context;
}

namespace hdstream {

struct HttpReply {
  std::string error;  // empty on success; one line naming what went wrong otherwise
  unsigned status = 0;
  std::string body;
};

// How a client reaches the servers: the default is plain HTTP without credentials.
struct HttpClientSettings {
  std::shared_ptr<asio::ssl::context> tls;  // set: HTTPS, the server's certificate verified
  std::string server_name;    // the name its certificate must carry; empty: the host polled
  bool verify_name = true;    // false: any certificate (insecure_skip_verify)
  std::string authorization;  // the Authorization header sent; empty: none
};

// The settings an --http-config file describes. Throws WebConfigError naming a CA file that is
// not one.
HttpClientSettings http_client_settings(const HttpClientConfig& config);

// Resolves, connects (and shakes hands), sends GET, reads the reply (body at most
// `max_body_bytes`), closes. (Two overloads rather than a default HttpClientSettings: GCC 12
// mishandles a class-type default argument in a co_await expression, freeing it twice.)
awaitable<HttpReply> http_get(asio::any_io_executor executor, Endpoint server, std::string target,
                              std::chrono::nanoseconds timeout,
                              std::size_t max_body_bytes = 8u << 20);
awaitable<HttpReply> http_get(asio::any_io_executor executor, Endpoint server, std::string target,
                              std::chrono::nanoseconds timeout, std::size_t max_body_bytes,
                              HttpClientSettings settings);

}  // namespace hdstream
