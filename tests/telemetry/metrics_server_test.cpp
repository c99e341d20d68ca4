// /metrics and /stats.json over real HTTP on loopback while real feeds run, and clients that
// misbehave.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "http_helpers.hpp"
#include "loopback_feeds.hpp"
#include "stats/snapshot_json.hpp"
#include "telemetry/http_client.hpp"
#include "telemetry/metrics_server.hpp"
#include "telemetry/prometheus.hpp"
#include "tests/support/eventually.hpp"

namespace hdstream {
namespace {

using namespace std::chrono_literals;
using namespace std::string_literals;
using testing::body_of;
using testing::http_exchange;
using testing::RawConnection;

class MetricsServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    feeds_ = std::make_unique<testing::LoopbackFeeds>(3, 30'000'000);
    feeds_->start();
    MetricsServerOptions options;
    options.listen = Endpoint{"127.0.0.1", 0};
    options.host_label = "test-host";
    options.refresh = 100ms;
    options.request_timeout = 500ms;
    const std::string endpoint = feeds_->endpoint().to_string();
    server_ = std::make_shared<MetricsServer>(feeds_->io(), options, [this, endpoint] {
      return std::vector<LabeledSnapshot>{
          {"test-host", endpoint, feeds_->sent.read()},
          {"test-host", endpoint, feeds_->received.read()},
      };
    });
    server_->start();
    port_ = server_->local_endpoint().port;
  }
  void TearDown() override {
    server_->stop();
    EXPECT_TRUE(feeds_->finish());
  }

  std::unique_ptr<testing::LoopbackFeeds> feeds_;
  std::shared_ptr<MetricsServer> server_;
  std::uint16_t port_ = 0;
};

struct Sample {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = 0;
};

// A strict reader of the text exposition format for what we emit: every sample belongs to a
// family announced by HELP and TYPE, counters end in _total, values are numbers.
std::vector<Sample> parse_exposition(const std::string& text) {
  static const std::regex sample_re(R"(^([a-zA-Z_:][a-zA-Z0-9_:]*)\{([^}]*)\} (\S+)$)");
  static const std::regex label_re(R"re(([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)")re");
  std::map<std::string, std::string> types;
  std::set<std::string> helped;
  std::vector<Sample> samples;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("# HELP ", 0) == 0) {
      helped.insert(line.substr(7, line.find(' ', 7) - 7));
      continue;
    }
    if (line.rfind("# TYPE ", 0) == 0) {
      std::istringstream fields(line.substr(7));
      std::string name, type;
      fields >> name >> type;
      EXPECT_TRUE(type == "counter" || type == "gauge") << line;
      if (type == "counter") {
        EXPECT_TRUE(name.size() > 6 && name.ends_with("_total")) << line;
      }
      EXPECT_FALSE(types.contains(name)) << "family announced twice: " << name;
      types[name] = type;
      continue;
    }
    if (line.empty()) continue;
    std::smatch match;
    EXPECT_TRUE(std::regex_match(line, match, sample_re)) << "not a sample line: " << line;
    if (match.empty()) continue;
    Sample sample;
    sample.name = match[1];
    EXPECT_TRUE(types.contains(sample.name)) << "no TYPE before " << line;
    EXPECT_TRUE(helped.contains(sample.name)) << "no HELP before " << line;
    const std::string labels = match[2];
    for (auto it = std::sregex_iterator(labels.begin(), labels.end(), label_re);
         it != std::sregex_iterator(); ++it) {
      sample.labels[(*it)[1]] = (*it)[2];
    }
    std::size_t used = 0;
    sample.value = std::stod(match[3].str(), &used);
    EXPECT_EQ(used, match[3].str().size()) << line;
    samples.push_back(std::move(sample));
  }
  return samples;
}

double find_value(const std::vector<Sample>& samples, const std::string& name,
                  const std::string& stream) {
  for (const auto& s : samples) {
    if (s.name == name && s.labels.count("stream") && s.labels.at("stream") == stream) {
      return s.value;
    }
  }
  return -1;
}

TEST_F(MetricsServerTest, MetricsIsValidExpositionAndCountsGrow) {
  std::vector<Sample> samples;
  std::string response;
  ASSERT_TRUE(testing::wait_until([&] {
    response = http_exchange(port_, "/metrics");
    samples = parse_exposition(body_of(response));
    return find_value(samples, "hdstream_bytes_received_total", "0") > 0 &&
           find_value(samples, "hdstream_far_end_frames_received_total", "2") > 0;
  }));
  EXPECT_EQ(response.rfind("HTTP/1.1 200", 0), 0u);
  EXPECT_NE(response.find("text/plain; version=0.0.4"), std::string::npos);
  // Labels are low-cardinality: role, stream, transport (uptime: role only).
  for (const auto& s : samples) {
    for (const auto& [key, value] : s.labels) {
      EXPECT_TRUE(key == "role" || key == "stream" || key == "transport") << s.name << " " << key;
    }
  }
  const double first = find_value(samples, "hdstream_bytes_received_total", "0");
  ASSERT_TRUE(testing::wait_until([&] {
    return find_value(parse_exposition(body_of(http_exchange(port_, "/metrics"))),
                      "hdstream_bytes_received_total", "0") > first;
  }));
  EXPECT_EQ(find_value(samples, "hdstream_stream_running", "2"), 1.0);
}

// The receiver's jitter is exported in seconds: the figure /stats.json gives in milliseconds,
// read from the same refreshed copy (the /stats.json fetched before and after /metrics agree).
TEST_F(MetricsServerTest, JitterInSecondsIsTheStatsDocumentsMilliseconds) {
  double exported_s = -1;
  double document_ms = -1;
  ASSERT_TRUE(testing::wait_until([&] {
    const std::string before = body_of(http_exchange(port_, "/stats.json"));
    const auto samples = parse_exposition(body_of(http_exchange(port_, "/metrics")));
    const std::string after = body_of(http_exchange(port_, "/stats.json"));
    if (before != after) return false;
    for (const auto& source : parse_stats_document(after)) {
      if (source.snapshot.role == Role::recv) document_ms = source.snapshot.streams.at(1).jitter_ms;
    }
    exported_s = find_value(samples, "hdstream_jitter_seconds", "1");
    // A live feed's arrivals never keep perfect time: a measured jitter is above zero.
    return document_ms > 0;
  })) << "jitter "
      << document_ms << " ms in /stats.json";
  // /stats.json rounds to 0.001 ms.
  EXPECT_NEAR(exported_s * 1e3, document_ms, 0.0005 + 1e-9);
}

// Python's prometheus_client parser over `body`, which must hold the family `family` (its name
// without _total): the exit status and what it printed ("families samples" on success).
std::pair<int, std::string> prometheus_client_parse(const std::string& body,
                                                    const std::string& family) {
  const std::string path = ::testing::TempDir() + "/hdstream_metrics_" + family + ".txt";
  std::ofstream(path) << body;
  const std::string command = std::string(HDSTREAM_PYTHON) +
                              " -c \"import sys; from prometheus_client.parser import "
                              "text_string_to_metric_families as parse; "
                              "fams = list(parse(open(sys.argv[1]).read())); "
                              "names = {f.name for f in fams}; "
                              "assert sys.argv[2] in names, names; "
                              "print(len(fams), sum(len(f.samples) for f in fams))\" " +
                              path + " " + family + " 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return {-1, "popen failed"};
  char output[4096] = {};
  const std::size_t n = std::fread(output, 1, sizeof(output) - 1, pipe);
  const int status = ::pclose(pipe);
  return {status, std::string(output, n)};
}

TEST_F(MetricsServerTest, MetricsPassesThePrometheusPythonParser) {
  std::string body;
  ASSERT_TRUE(testing::wait_until([&] {
    body = body_of(http_exchange(port_, "/metrics"));
    return find_value(parse_exposition(body), "hdstream_far_end_frames_received_total", "0") > 0;
  }));
  const auto [status, output] = prometheus_client_parse(body, "hdstream_bytes_received");
  ASSERT_EQ(status, 0) << "prometheus_client rejected /metrics (is python3-prometheus-client "
                          "installed? scripts/install-deps.sh does): "
                       << output;
  int families = 0, sample_count = 0;
  ASSERT_EQ(std::sscanf(output.c_str(), "%d %d", &families, &sample_count), 2) << output;
  EXPECT_GE(families, 15);
  EXPECT_GE(sample_count, 30);
}

TEST_F(MetricsServerTest, StatsJsonIsTheLatestSnapshot) {
  std::vector<LabeledSnapshot> sources;
  ASSERT_TRUE(testing::wait_until([&] {
    const std::string response = http_exchange(port_, "/stats.json");
    if (response.rfind("HTTP/1.1 200", 0) != 0) return false;
    sources = parse_stats_document(body_of(response));
    return sources.size() == 2 && sources[1].snapshot.streams.size() == 3 &&
           sources[1].snapshot.streams[2].mbps > 0 && sources[0].snapshot.streams[0].far_end.valid;
  }));
  EXPECT_EQ(sources[0].snapshot.role, Role::send);
  EXPECT_EQ(sources[1].snapshot.role, Role::recv);
  EXPECT_EQ(sources[0].host, "test-host");
  EXPECT_EQ(sources[1].endpoint, feeds_->endpoint().to_string());
  // 30 Mbps feeds; the rate is over the last second.
  EXPECT_NEAR(sources[1].snapshot.streams[0].mbps, 30.0, 12.0);
}

// A plain coroutine (no lambda captures, no co_await inside call arguments): GCC 12's
// coroutine support is fragile with either.
awaitable<void> fetch(Endpoint server, HttpReply& reply, std::atomic<bool>& done) {
  auto executor = co_await asio::this_coro::executor;
  reply = co_await http_get(executor, server, "/stats.json", 2s);
  done = true;
}

TEST_F(MetricsServerTest, BeastClientFetchesStatsJson) {
  HttpReply reply;
  std::atomic<bool> done{false};
  asio::co_spawn(feeds_->io(), fetch(Endpoint{"127.0.0.1", port_}, reply, done), asio::detached);
  ASSERT_TRUE(testing::wait_until([&] { return done.load(); }));
  EXPECT_EQ(reply.error, "");
  EXPECT_EQ(reply.status, 200u);
  EXPECT_NO_THROW(parse_stats_document(reply.body));
}

TEST_F(MetricsServerTest, UnknownPathsAndMethodsAreAnswered) {
  EXPECT_EQ(http_exchange(port_, "/nope").rfind("HTTP/1.1 404", 0), 0u);
  RawConnection post(port_);
  post.send("DELETE /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(post.read_all().rfind("HTTP/1.1 405", 0), 0u);
}

// POST /program?feed=K with the control key reaches the program output's cut; anything else is
// refused with the status that says why, and the cut never sees it.
TEST_F(MetricsServerTest, ProgramCutsArePostsNamingAFeedAndNothingElseReachesTheCut) {
  // Without a control key, HTTP control is off: 403, whatever the request carries.
  RawConnection off(port_);
  off.send(
      "POST /program?feed=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer s3cret\r\n"
      "Connection: close\r\n\r\n");
  const std::string off_reply = off.read_all();
  EXPECT_EQ(off_reply.rfind("HTTP/1.1 403", 0), 0u) << off_reply;
  EXPECT_NE(off_reply.find("HTTP control is off"), std::string::npos) << off_reply;

  std::mutex mutex;  // cuts are made on the io_context's threads
  std::vector<int> cuts;
  MetricsServerOptions options;
  options.listen = Endpoint{"127.0.0.1", 0};
  options.request_timeout = 500ms;
  options.guard.control_token = [](std::string_view token) { return token == "s3cret"; };
  options.cut_program = [&mutex, &cuts](int feed) -> std::optional<std::string> {
    if (feed > 2) return "no feed " + std::to_string(feed) + ": this receiver serves feeds 0 to 2";
    std::lock_guard lock(mutex);
    cuts.push_back(feed);
    return std::nullopt;
  };
  auto server = std::make_shared<MetricsServer>(feeds_->io(), options,
                                                [] { return std::vector<LabeledSnapshot>{}; });
  server->start();
  const auto port = server->local_endpoint().port;
  auto post = [port](const std::string& target, const std::string& method = "POST",
                     const std::string& token = "s3cret") {
    RawConnection connection(port);
    connection.send(method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
                    (token.empty() ? "" : "Authorization: Bearer " + token + "\r\n") +
                    "Connection: close\r\n\r\n");
    return connection.read_all();
  };
  // Without the key, or with another: 401, asking for a bearer token.
  for (const std::string token : {"", "s3cre", "S3CRET"}) {
    const std::string refused = post("/program?feed=1", "POST", token);
    EXPECT_EQ(refused.rfind("HTTP/1.1 401", 0), 0u) << refused;
    EXPECT_NE(refused.find("WWW-Authenticate: Bearer realm=\"hdstream\""), std::string::npos)
        << refused;
  }
  const std::string ok = post("/program?feed=2");
  EXPECT_EQ(ok.rfind("HTTP/1.1 200", 0), 0u) << ok;
  EXPECT_NE(ok.find("program: cut to feed 2"), std::string::npos) << ok;
  EXPECT_EQ(post("/program?feed=0").rfind("HTTP/1.1 200", 0), 0u);
  const std::string unknown = post("/program?feed=7");
  EXPECT_EQ(unknown.rfind("HTTP/1.1 409", 0), 0u) << unknown;
  EXPECT_NE(unknown.find("no feed 7: this receiver serves feeds 0 to 2"), std::string::npos);
  for (const char* bad :
       {"/program", "/program?", "/program?feed=", "/program?feed=abc", "/program?feed=-1",
        "/program?feed=-0", "/program?feed=+1", "/program?feed=1x", "/program?feed=99999999999",
        "/program?feed=70000", "/program?stream=1", "/program?feed=1&x=2"}) {
    EXPECT_EQ(post(bad).rfind("HTTP/1.1 400", 0), 0u) << bad;
  }
  const std::string get = post("/program?feed=1", "GET");
  EXPECT_EQ(get.rfind("HTTP/1.1 405", 0), 0u) << get;
  EXPECT_NE(get.find("Allow: POST"), std::string::npos) << get;
  server->stop();
  std::lock_guard lock(mutex);
  EXPECT_EQ(cuts, (std::vector<int>{2, 0}));  // the refused ones never reached it
}

// A web page on the operator's machine, or one whose name was rebound to this address (DNS
// rebinding), gets nothing: every request names this server in its Host, and none comes from a
// page of another origin.
TEST_F(MetricsServerTest, ARequestNamingAnotherHostOrFromAnotherOriginGetsNothing) {
  auto ask = [](std::uint16_t port, const std::string& target, const std::string& headers) {
    RawConnection connection(port);
    connection.send("GET " + target + " HTTP/1.1\r\n" + headers + "Connection: close\r\n\r\n");
    return connection.read_all();
  };
  const std::string own = "Host: 127.0.0.1:" + std::to_string(port_) + "\r\n";
  for (const char* target : {"/stats.json", "/metrics", "/thumbnail?feed=0", "/"}) {
    SCOPED_TRACE(target);
    const std::string rebound = ask(port_, target, "Host: evil.example:9321\r\n");
    EXPECT_EQ(rebound.rfind("HTTP/1.1 403", 0), 0u) << rebound;
    EXPECT_NE(rebound.find("'evil.example' is not a name of this server"), std::string::npos);
    EXPECT_EQ(rebound.find("hdstream_"), std::string::npos);  // no figures
    EXPECT_EQ(rebound.find("\"streams\""), std::string::npos);
    const std::string page = ask(port_, target, own + "Origin: http://evil.example\r\n");
    EXPECT_EQ(page.rfind("HTTP/1.1 403", 0), 0u) << page;
    EXPECT_NE(page.find("cross-origin requests are refused"), std::string::npos) << page;
    const std::string image = ask(port_, target, own + "Sec-Fetch-Site: cross-site\r\n");
    EXPECT_EQ(image.rfind("HTTP/1.1 403", 0), 0u) << image;
    EXPECT_EQ(ask(port_, target, "").rfind("HTTP/1.1 400", 0), 0u);  // no Host at all
  }
  EXPECT_EQ(ask(port_, "/stats.json", own).rfind("HTTP/1.1 200", 0), 0u);
  EXPECT_EQ(ask(port_, "/stats.json", "Host: localhost\r\n").rfind("HTTP/1.1 200", 0), 0u);
  EXPECT_EQ(ask(port_, "/stats.json", "Host: studio-a\r\n").rfind("HTTP/1.1 403", 0), 0u);

  // A name given with --metrics-name is this server's too.
  MetricsServerOptions options;
  options.listen = Endpoint{"127.0.0.1", 0};
  options.guard.names = {"studio-a"};
  auto named = std::make_shared<MetricsServer>(feeds_->io(), options,
                                               [] { return std::vector<LabeledSnapshot>{}; });
  named->start();
  const auto port = named->local_endpoint().port;
  EXPECT_EQ(ask(port, "/stats.json", "Host: Studio-A:9100\r\n").rfind("HTTP/1.1 200", 0), 0u);
  EXPECT_EQ(ask(port, "/stats.json", "Host: studio-b\r\n").rfind("HTTP/1.1 403", 0), 0u);
  named->stop();
}

TEST_F(MetricsServerTest, ThumbnailsAreJpegsOfTheFeedAskedForAndNothingElse) {
  // Without decoded feeds: 404 for any feed.
  RawConnection none(port_);
  none.send("GET /thumbnail?feed=0 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(none.read_all().rfind("HTTP/1.1 404", 0), 0u);

  // A JPEG's bytes, NULs and all, as the board would give them (pipeline/thumbnails is tested
  // on real pictures; here the server's part: the bytes go out exactly, typed, to GETs only).
  const std::string jpeg = "\xFF\xD8\xFF\xE0\x00\x10JFIF\x00\x01 feed one \xFF\xD9"s;
  MetricsServerOptions options;
  options.listen = Endpoint{"127.0.0.1", 0};
  options.request_timeout = 500ms;
  options.thumbnail = [&jpeg](int feed) -> std::optional<std::string> {
    if (feed == 1) return jpeg;
    return std::nullopt;
  };
  auto server = std::make_shared<MetricsServer>(feeds_->io(), options,
                                                [] { return std::vector<LabeledSnapshot>{}; });
  server->start();
  const auto port = server->local_endpoint().port;
  auto ask = [port](const std::string& target, const std::string& method = "GET") {
    RawConnection connection(port);
    connection.send(method + " " + target +
                    " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    return connection.read_all();
  };
  const std::string ok = ask("/thumbnail?feed=1");
  EXPECT_EQ(ok.rfind("HTTP/1.1 200", 0), 0u) << ok;
  EXPECT_NE(ok.find("Content-Type: image/jpeg"), std::string::npos) << ok;
  EXPECT_NE(ok.find("Content-Length: " + std::to_string(jpeg.size()) + "\r\n"), std::string::npos)
      << ok;
  ASSERT_GE(ok.size(), jpeg.size());
  EXPECT_EQ(ok.substr(ok.size() - jpeg.size()), jpeg);
  const std::string missing = ask("/thumbnail?feed=2");
  EXPECT_EQ(missing.rfind("HTTP/1.1 404", 0), 0u) << missing;
  EXPECT_NE(missing.find("no picture of feed 2 here"), std::string::npos) << missing;
  for (const char* bad : {"/thumbnail", "/thumbnail?feed=", "/thumbnail?feed=-1",
                          "/thumbnail?feed=1%00", "/thumbnail?feed=65536", "/thumbnail?f=1",
                          "/thumbnail?feed=1&feed=2", "/thumbnail?feed=0x1"}) {
    EXPECT_EQ(ask(bad).rfind("HTTP/1.1 400", 0), 0u) << bad;
  }
  EXPECT_EQ(ask("/thumbnail?feed=1", "POST").rfind("HTTP/1.1 405", 0), 0u);
  server->stop();
}

TEST_F(MetricsServerTest, HostileClientsAreClosedWithoutDisturbingTheServer) {
  // Garbage instead of a request line.
  RawConnection garbage(port_);
  garbage.send(std::string("\x16\x03\x01 definitely not http\r\n\r\n"));
  bool closed = false;
  EXPECT_EQ(garbage.read_all(&closed).rfind("HTTP/1.1 400", 0), 0u);
  EXPECT_TRUE(closed);

  // Headers far beyond the limit.
  RawConnection huge(port_);
  std::string request = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  for (int i = 0; i < 2000; ++i)
    request += "X-Filler-" + std::to_string(i) + ": " + std::string(40, 'a') + "\r\n";
  request += "\r\n";
  huge.send(request);  // may fail part-way once the server has closed: that is the point
  closed = false;
  const std::string answer = huge.read_all(&closed);
  EXPECT_TRUE(closed);
  EXPECT_EQ(answer.find("HTTP/1.1 200"), std::string::npos);

  // A body where none is allowed.
  RawConnection body(port_);
  body.send("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n\r\nhello");
  closed = false;
  EXPECT_EQ(body.read_all(&closed).find("HTTP/1.1 200"), std::string::npos);

  // Slowloris: half a request, then nothing. The server keeps answering others meanwhile and
  // closes the slow one at its deadline (500 ms here).
  RawConnection slow(port_);
  slow.send("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n");
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(http_exchange(port_, "/metrics").rfind("HTTP/1.1 200", 0), 0u);
  closed = false;
  const std::string slow_answer = slow.read_all(&closed);
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_TRUE(closed);
  EXPECT_TRUE(slow_answer.empty()) << slow_answer;
  EXPECT_LT(waited, 4s);

  // Keep-alive still works after all that.
  RawConnection keep(port_);
  keep.send(
      "GET /stats.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /metrics HTTP/1.1\r\nHost: "
      "127.0.0.1\r\nConnection: "
      "close\r\n\r\n");
  const std::string both = keep.read_all();
  EXPECT_EQ(both.rfind("HTTP/1.1 200", 0), 0u);
  EXPECT_NE(both.find("HTTP/1.1 200", 10), std::string::npos);
}

// One client address holding 70 idle connections (more than the server's 64 in all) locks
// nobody out: it keeps its address's 8, the rest are closed at once, and a client from another
// address is answered meanwhile. (Before the per-address cap, 64 idle connections from anyone
// left every other client unanswered until they timed out.)
TEST_F(MetricsServerTest, OneAddressHoldingManyIdleConnectionsLocksNobodyOut) {
  // A server whose request deadline outlasts the test: the crowd is not timed out.
  server_->stop();
  MetricsServerOptions options;
  options.listen = Endpoint{"127.0.0.1", 0};
  options.request_timeout = 30s;
  server_ = std::make_shared<MetricsServer>(feeds_->io(), options,
                                            [] { return std::vector<LabeledSnapshot>{}; });
  server_->start();
  port_ = server_->local_endpoint().port;

  asio::io_context io;
  std::vector<tcp::socket> crowd;
  for (int i = 0; i < 70; ++i) {
    tcp::socket socket(io);
    socket.open(tcp::v4());
    socket.bind({asio::ip::make_address("127.0.0.2"), 0});
    socket.connect({asio::ip::make_address("127.0.0.1"), port_});
    socket.non_blocking(true);
    crowd.push_back(std::move(socket));
  }
  // Still open: nothing to read yet (a closed one reads its end at once).
  auto still_open = [&] {
    std::size_t open = 0;
    for (auto& socket : crowd) {
      char byte = 0;
      error_code ec;
      socket.read_some(asio::buffer(&byte, 1), ec);
      open += ec == asio::error::would_block ? 1 : 0;
    }
    return open;
  };
  EXPECT_TRUE(test::eventually([&] { return still_open() == 8; }, 5s)) << still_open();
  EXPECT_EQ(http_exchange(port_, "/metrics").rfind("HTTP/1.1 200", 0), 0u);
  EXPECT_EQ(still_open(), 8u);  // the address's share is held, not refused
}

// libsrt's FEC figures (--srt-fec): a family per figure, samples for SRT feeds only, the
// recovered and uncorrectable packets on the receiving side only.
TEST(Metrics, SrtFecFiguresAreCountersOfSrtFeeds) {
  Snapshot received;
  received.role = Role::recv;
  received.streams.resize(2);
  received.streams[0].transport = "tcp";
  received.streams[1].stream = 1;
  received.streams[1].transport = "srt";
  received.streams[1].srt.present = true;
  received.streams[1].srt.fec_packets = 4000;
  received.streams[1].srt.fec_recovered = 130;
  received.streams[1].srt.fec_uncorrectable = 2;
  Snapshot sent = received;
  sent.role = Role::send;
  const std::vector<LabeledSnapshot> sources{{"h", "e", sent}, {"h", "e", received}};
  const auto samples = parse_exposition(prometheus_text(sources));
  auto values = [&](const std::string& name) {
    std::vector<std::string> found;
    for (const auto& s : samples) {
      if (s.name == name) {
        found.push_back(s.labels.at("role") + "/" + s.labels.at("stream") + "=" +
                        std::to_string(static_cast<int>(s.value)));
      }
    }
    return found;
  };
  EXPECT_EQ(values("hdstream_srt_fec_packets_total"),
            (std::vector<std::string>{"send/1=4000", "recv/1=4000"}));
  EXPECT_EQ(values("hdstream_srt_fec_recovered_total"), (std::vector<std::string>{"recv/1=130"}));
  EXPECT_EQ(values("hdstream_srt_fec_uncorrectable_total"), (std::vector<std::string>{"recv/1=2"}));
}

// Two-path protection: per feed, what the second path saved, the legs up and the skew window;
// per leg (labelled leg="A" | "B"), its state, bytes, frames, drops, RTT, retransmits and the
// frames only it delivered. Plain feeds have none of these samples.
TEST(Metrics, AProtectedFeedHasFeedAndLegFamiliesLabelledByLeg) {
  Snapshot received;
  received.role = Role::recv;
  received.streams.resize(2);
  received.streams[0].transport = "tcp";
  StreamSnapshot& feed = received.streams[1];
  feed.stream = 1;
  feed.transport = "tcp";
  feed.protection.present = true;
  feed.protection.protected_frames = 151;
  feed.protection.legs_up = 1;
  feed.protection.skew_ms = 48.5;
  feed.protection.legs = {
      LegSnapshot{0, StreamState::waiting, 5000, 0, 20, 3, 20.5, 2, 0},
      LegSnapshot{1, StreamState::running, 9000, 101.5, 171, 0, 35.25, 7, 151},
  };
  Snapshot sent = received;
  sent.role = Role::send;
  sent.streams[1].protection.protected_frames = 0;  // the sender merges nothing
  const std::vector<LabeledSnapshot> sources{{"h", "e", sent}, {"h", "e", received}};
  const std::string body = prometheus_text(sources);
  const auto samples = parse_exposition(body);
  auto values = [&](const std::string& name) {
    std::vector<std::string> found;
    for (const auto& s : samples) {
      if (s.name != name) continue;
      std::string labels;
      for (const auto& [key, value] : s.labels) {
        EXPECT_TRUE(key == "role" || key == "stream" || key == "transport" || key == "leg")
            << s.name << " " << key;
        if (key != "transport") labels += (labels.empty() ? "" : "/") + value;
      }
      found.push_back(labels + "=" + fmt::format("{}", s.value));
    }
    return found;
  };
  EXPECT_EQ(values("hdstream_protected_frames_total"), (std::vector<std::string>{"recv/1=151"}));
  EXPECT_EQ(values("hdstream_legs_up"), (std::vector<std::string>{"send/1=1", "recv/1=1"}));
  EXPECT_EQ(values("hdstream_skew_seconds"), (std::vector<std::string>{"recv/1=0.0485"}));
  // Labels sort by name: leg, role, stream.
  EXPECT_EQ(values("hdstream_leg_up"),
            (std::vector<std::string>{"A/send/1=0", "B/send/1=1", "A/recv/1=0", "B/recv/1=1"}));
  EXPECT_EQ(values("hdstream_leg_bytes_sent_total"),
            (std::vector<std::string>{"A/send/1=5000", "B/send/1=9000"}));
  EXPECT_EQ(values("hdstream_leg_bytes_received_total"),
            (std::vector<std::string>{"A/recv/1=5000", "B/recv/1=9000"}));
  EXPECT_EQ(values("hdstream_leg_frames_received_total"),
            (std::vector<std::string>{"A/recv/1=20", "B/recv/1=171"}));
  EXPECT_EQ(values("hdstream_leg_frames_dropped_total"),
            (std::vector<std::string>{"A/send/1=3", "B/send/1=0", "A/recv/1=3", "B/recv/1=0"}));
  EXPECT_EQ(values("hdstream_leg_rtt_seconds"),
            (std::vector<std::string>{"A/send/1=0.0205", "B/send/1=0.03525", "A/recv/1=0.0205",
                                      "B/recv/1=0.03525"}));
  EXPECT_EQ(values("hdstream_leg_retransmits_total"),
            (std::vector<std::string>{"A/send/1=2", "B/send/1=7"}));
  EXPECT_EQ(values("hdstream_leg_only_frames_total"),
            (std::vector<std::string>{"A/recv/1=0", "B/recv/1=151"}));
  // Stream 0 is a plain feed: no protection sample names it.
  for (const auto& s : samples) {
    if (s.name.find("leg") != std::string::npos || s.name.find("protected") != std::string::npos ||
        s.name.find("skew") != std::string::npos) {
      EXPECT_EQ(s.labels.at("stream"), "1") << s.name;
    }
  }
  const auto [status, output] = prometheus_client_parse(body, "hdstream_leg_bytes_received");
  EXPECT_EQ(status, 0) << output;
}

TEST(MetricsListen, PortOnlyBindsLoopback) {
  EXPECT_EQ(parse_metrics_listen(":9100"), (Endpoint{"127.0.0.1", 9100}));
  EXPECT_EQ(parse_metrics_listen("0.0.0.0:9100"), (Endpoint{"0.0.0.0", 9100}));
  EXPECT_THROW(parse_metrics_listen("nonsense"), EndpointError);
}

}  // namespace
}  // namespace hdstream
