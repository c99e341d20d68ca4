// The telemetry server behind a --web-config: TLS with a certificate signed by a test CA (made
// by the openssl command), basic auth against bcrypt hashes, over real sockets on loopback, with
// hdstream's own client (the monitor's) and a raw TLS client for what it does not send.
#include <gtest/gtest.h>

#include <future>
#include <sstream>
#include <thread>

#include <spdlog/sinks/ostream_sink.h>

#include <boost/asio/ssl.hpp>

#include "common/log.hpp"
#include "telemetry/http_client.hpp"
#include "telemetry/metrics_server.hpp"
#include "telemetry/password_check.hpp"
#include "tests/support/process.hpp"
#include "tests/telemetry/tls_files.hpp"

namespace hdstream {
namespace {

using namespace std::chrono_literals;

class TlsAuth : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::scratch_dir("tls-auth");
    files_ = test::make_tls_files(dir_, "studio.example");
  }
  void TearDown() override {
    if (server_) server_->stop();
    work_.reset();
    if (thread_.joinable()) thread_.join();
  }

  // A server of /metrics with TLS and the user "prometheus" (password "right", bcrypt `cost`);
  // POST /program cuts with the control key "cut-key".
  void start(unsigned long cost = 4, std::size_t max_password_checks = 2) {
    MetricsServerOptions options;
    options.listen = Endpoint{"127.0.0.1", 0};
    options.host_label = "tls-host";
    options.guard.names = {"studio.example"};
    options.guard.control_token = [](std::string_view token) { return token == "cut-key"; };
    options.cut_program = [this](int feed) -> std::optional<std::string> {
      cut_to_ = feed;
      return std::nullopt;
    };
    options.web.tls = WebConfig::Tls{files_.server_cert, files_.server_key, TlsVersion::tls12};
    options.web.basic_auth_users = {{"prometheus", test::bcrypt_hash("right", cost)}};
    options.max_password_checks = max_password_checks;
    server_ = std::make_shared<MetricsServer>(io_, options,
                                              [] { return std::vector<LabeledSnapshot>{}; });
    server_->start();
    port_ = server_->local_endpoint().port;
    thread_ = std::thread([this] { io_.run(); });
  }

  // GET `target` with hdstream's client and `config`'s settings.
  HttpReply get(const HttpClientConfig& config, const std::string& target = "/metrics") {
    asio::io_context client;
    auto reply = asio::co_spawn(client,
                                http_get(client.get_executor(), Endpoint{"127.0.0.1", port_},
                                         target, 5s, 1 << 20, http_client_settings(config)),
                                asio::use_future);
    client.run();
    return reply.get();
  }

  HttpClientConfig client(const std::string& password,
                          std::optional<std::filesystem::path> ca = std::nullopt) const {
    HttpClientConfig config;
    config.tls = HttpClientConfig::Tls{ca.value_or(files_.ca_cert), "studio.example", false};
    if (!password.empty()) config.basic_auth = HttpClientConfig::BasicAuth{"prometheus", password};
    return config;
  }

  // One raw request over TLS (trusting the test CA); the whole response.
  std::string raw_tls(const std::string& request) {
    asio::io_context io;
    asio::ssl::context context(asio::ssl::context::tls_client);
    context.load_verify_file(files_.ca_cert.string());
    context.set_verify_mode(asio::ssl::verify_peer);
    asio::ssl::stream<tcp::socket> stream(io, context);
    stream.next_layer().connect({asio::ip::make_address("127.0.0.1"), port_});
    stream.handshake(asio::ssl::stream_base::client);
    asio::write(stream, asio::buffer(request));
    std::string response;
    error_code ec;
    char buffer[4096];
    for (;;) {
      const auto n = stream.read_some(asio::buffer(buffer), ec);
      response.append(buffer, n);
      if (ec) break;
    }
    return response;
  }

  std::filesystem::path dir_;
  test::TlsFiles files_;
  asio::io_context io_;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work_{
      asio::make_work_guard(io_)};
  std::thread thread_;
  std::shared_ptr<MetricsServer> server_;
  std::uint16_t port_ = 0;
  std::atomic<int> cut_to_{-1};
};

TEST_F(TlsAuth, OnlyTheRightPasswordOverTlsToTheRightNameGetsTheMetrics) {
  start();
  const auto ok = get(client("right"));
  ASSERT_EQ(ok.error, "");
  EXPECT_EQ(ok.status, 200u);
  EXPECT_NE(ok.body.find("# TYPE hdstream_"), std::string::npos) << ok.body.substr(0, 200);

  const auto wrong = get(client("wrong"));
  EXPECT_EQ(wrong.status, 401u);
  EXPECT_EQ(wrong.body, "a user and password are needed\n");
  EXPECT_EQ(get(client("")).status, 401u);

  // A client that does not trust the server's CA, or expects another name, never sends a byte
  // of its request; one that speaks plain HTTP to the TLS port gets no answer.
  EXPECT_NE(get(client("right", files_.other_ca_cert)).error.find("TLS handshake failed with"),
            std::string::npos);
  auto other_name = client("right");
  other_name.tls->server_name = "another.example";
  EXPECT_NE(get(other_name).error.find("TLS handshake failed with"), std::string::npos);
  HttpClientConfig plain;
  plain.basic_auth = HttpClientConfig::BasicAuth{"prometheus", "right"};
  const auto plain_reply = get(plain);
  EXPECT_NE(plain_reply.error, "");
  EXPECT_EQ(plain_reply.status, 0u);
  // insecure_skip_verify takes any certificate (as Prometheus's does).
  auto insecure = client("right", files_.other_ca_cert);
  insecure.tls->insecure_skip_verify = true;
  EXPECT_EQ(get(insecure).status, 200u);
}

TEST_F(TlsAuth, TheChallengeIsBasicAndACutTakesTheControlKeyNotAPassword) {
  // What the server logs, beside its usual sink.
  std::ostringstream logged;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(logged);
  logger("metrics")->sinks().push_back(sink);
  start();
  const auto challenge = raw_tls(
      "GET /stats.json HTTP/1.1\r\nHost: studio.example\r\n"
      "Connection: close\r\n\r\n");
  EXPECT_EQ(challenge.rfind("HTTP/1.1 401", 0), 0u) << challenge;
  EXPECT_NE(challenge.find("WWW-Authenticate: Basic realm=\"hdstream\", charset=\"UTF-8\""),
            std::string::npos)
      << challenge;
  // The guard's refusals come before any password: a foreign Host is 403, not a challenge.
  const auto foreign =
      raw_tls("GET /metrics HTTP/1.1\r\nHost: evil.example\r\nAuthorization: " +
              basic_authorization({"prometheus", "right"}) + "\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(foreign.rfind("HTTP/1.1 403", 0), 0u) << foreign;

  const auto cut = raw_tls(
      "POST /program?feed=2 HTTP/1.1\r\nHost: studio.example\r\n"
      "Authorization: Bearer cut-key\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(cut.rfind("HTTP/1.1 200", 0), 0u) << cut;
  EXPECT_EQ(cut_to_.load(), 2);
  // A password is not the control key.
  const auto with_password =
      raw_tls("POST /program?feed=1 HTTP/1.1\r\nHost: studio.example\r\nAuthorization: " +
              basic_authorization({"prometheus", "right"}) + "\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(with_password.rfind("HTTP/1.1 401", 0), 0u) << with_password;
  EXPECT_EQ(cut_to_.load(), 2);
  // Every cut asked for, made or refused, is logged with who asked.
  server_->stop();
  logger("metrics")->sinks().pop_back();
  const std::string log = logged.str();
  EXPECT_NE(log.find("program: cut to feed 2 asked for over HTTP by 127.0.0.1:"), std::string::npos)
      << log;
  EXPECT_NE(log.find("program: refused a cut asked for by 127.0.0.1:"), std::string::npos) << log;
  EXPECT_NE(log.find("refused GET /stats.json from 127.0.0.1:"), std::string::npos) << log;
}

// bcrypt at cost 13 (about half a second here) runs off the io threads: while a guess is being
// checked, the next new credentials are answered 503 at once (a guesser cannot queue up the
// CPU), and a client whose password was verified before is served without waiting.
TEST_F(TlsAuth, AGuessBeingCheckedNeitherQueuesMoreNorHoldsUpAKnownClient) {
  start(/*cost=*/13, /*max_password_checks=*/1);
  ASSERT_EQ(get(client("right")).status, 200u);  // verified once, remembered from now on

  // A guess, and at once another: when the other is told to come back (503), the guess is the
  // one being checked. (When the other got to the server first, it is checked instead and the
  // guess turned away: then both are tried again.)
  std::future<unsigned> guess;
  bool busy = false;
  for (int attempt = 0; attempt < 10 && !busy; ++attempt) {
    guess = std::async(std::launch::async, [&] { return get(client("guess")).status; });
    busy = get(client("another")).status == 503u;
    if (!busy) guess.wait();
  }
  ASSERT_TRUE(busy) << "no guess was ever turned away while another was being checked";
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(get(client("right")).status, 200u);
  const auto known_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(guess.wait_for(0s), std::future_status::timeout)
      << "the known client waited for the guess's check (" << known_ms << " ms)";
  EXPECT_EQ(guess.get(), 401u);
}

}  // namespace
}  // namespace hdstream
