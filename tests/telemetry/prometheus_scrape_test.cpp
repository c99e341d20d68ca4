// A real Prometheus (Debian's) scrapes a real receiver's telemetry behind a --web-config: over
// TLS with the right password it gets the feed's counters; with a wrong password, or over plain
// HTTP, it gets nothing and says why. `hdstream monitor --http-config` reads the same server.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "telemetry/http_client.hpp"
#include "tests/support/process.hpp"
#include "tests/telemetry/tls_files.hpp"

namespace hdstream {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

constexpr const char* kPrometheus = "/usr/bin/prometheus";

// GET from Prometheus's own API (plain HTTP on loopback); the parsed "data", or null.
json prometheus_api(std::uint16_t port, const std::string& target) {
  asio::io_context io;
  auto reply = asio::co_spawn(
      io, http_get(io.get_executor(), Endpoint{"127.0.0.1", port}, target, 2s), asio::use_future);
  io.run();
  const auto got = reply.get();
  if (!got.error.empty() || got.status != 200) return nullptr;
  const auto document = json::parse(got.body, nullptr, /*allow_exceptions=*/false);
  return document.is_object() && document.value("status", "") == "success" ? document["data"]
                                                                           : json();
}

class PrometheusScrape : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(std::filesystem::exists(kPrometheus))
        << "Prometheus is not installed: scripts/install-deps.sh installs it";
    dir_ = test::scratch_dir("prometheus-scrape");
    files_ = test::make_tls_files(dir_, "studio.example");
    const int ports = test::free_port(4);
    ASSERT_GT(ports, 0);
    feed_port_ = ports;
    metrics_port_ = static_cast<std::uint16_t>(ports + 2);
    prometheus_port_ = static_cast<std::uint16_t>(ports + 3);
    test::write_file(dir_ / "web.yml",
                     "tls_server_config:\n"
                     "  cert_file: server.crt\n"
                     "  key_file: server.key\n"
                     "basic_auth_users:\n"
                     "  prometheus: " +
                         test::bcrypt_hash("scrape-pass") + "\n");
    test::write_file(dir_ / "scrape.pass", "scrape-pass\n");
  }

  std::filesystem::path dir_;
  test::TlsFiles files_;
  int feed_port_ = 0;
  std::uint16_t metrics_port_ = 0;
  std::uint16_t prometheus_port_ = 0;
};

TEST_F(PrometheusScrape, OverTlsWithThePasswordOnlyAndTheMonitorReadsTheSame) {
  const std::string metrics = fmt::format("127.0.0.1:{}", metrics_port_);
  test::Process receiver(
      {HDSTREAM_BINARY, "recv", "--listen", fmt::format("127.0.0.1:{}", feed_port_),
       "--metrics-listen", metrics, "--web-config", (dir_ / "web.yml").string(), "--no-gui"},
      dir_, "recv");
  ASSERT_TRUE(test::eventually([&] {
    return receiver.err().find("serving /metrics") != std::string::npos;
  })) << receiver.err();
  EXPECT_NE(receiver.err().find("on https://" + metrics + "/ (basic auth)"), std::string::npos)
      << receiver.err();
  test::Process sender({HDSTREAM_BINARY, "send", "--dest", fmt::format("127.0.0.1:{}", feed_port_),
                        "--rate", "10M", "--duration", "60s", "--no-gui"},
                       dir_, "send");

  const std::string tls =
      "    scheme: https\n"
      "    tls_config:\n"
      "      ca_file: " +
      files_.ca_cert.string() +
      "\n"
      "      server_name: studio.example\n";
  const std::string target = "    static_configs:\n      - targets: ['" + metrics + "']\n";
  test::write_file(dir_ / "prometheus.yml",
                   "global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\n"
                   "scrape_configs:\n"
                   "  - job_name: hdstream\n" +
                       tls +
                       "    basic_auth:\n      username: prometheus\n"
                       "      password_file: " +
                       (dir_ / "scrape.pass").string() + "\n" + target +
                       "  - job_name: wrong-password\n" + tls +
                       "    basic_auth:\n      username: prometheus\n      password: guess\n" +
                       target + "  - job_name: plain-http\n" + target);
  test::Process prometheus({kPrometheus, "--config.file=" + (dir_ / "prometheus.yml").string(),
                            "--storage.tsdb.path=" + (dir_ / "data").string(),
                            fmt::format("--web.listen-address=127.0.0.1:{}", prometheus_port_)},
                           dir_, "prometheus");

  // Every target scraped at least once, with the health Prometheus gives it.
  std::map<std::string, json> targets;
  const bool scraped = test::eventually(
      [&] {
        const auto data = prometheus_api(prometheus_port_, "/api/v1/targets");
        if (!data.is_object()) return false;
        targets.clear();
        for (const auto& t : data.value("activeTargets", json::array())) {
          if (t.value("health", "unknown") == "unknown") return false;
          targets[t["labels"].value("job", "")] = t;
        }
        return targets.size() == 3;
      },
      30s);
  ASSERT_TRUE(scraped) << prometheus.err().substr(0, 2000);
  EXPECT_EQ(targets["hdstream"].value("health", ""), "up") << targets["hdstream"].dump();
  EXPECT_EQ(targets["wrong-password"].value("health", ""), "down");
  EXPECT_NE(targets["wrong-password"].value("lastError", "").find("401"), std::string::npos)
      << targets["wrong-password"].dump();
  EXPECT_EQ(targets["plain-http"].value("health", ""), "down") << targets["plain-http"].dump();

  // The feed's frames, as Prometheus stored them from the scrapes.
  double frames = 0;
  EXPECT_TRUE(test::eventually(
      [&] {
        const auto data = prometheus_api(
            prometheus_port_,
            "/api/v1/query?query=hdstream_frames_received_total%7Bjob%3D%22hdstream%22%7D");
        if (!data.is_object() || data["result"].empty()) return false;
        frames = std::stod(data["result"][0]["value"][1].get<std::string>());
        return frames > 0;
      },
      20s))
      << "Prometheus stored no frames received; see " << dir_;

  // The monitor, with the client settings Prometheus uses, reads the feed too.
  test::write_file(dir_ / "http.yml",
                   "tls_config:\n  ca_file: ca.crt\n"
                   "  server_name: studio.example\n"
                   "basic_auth:\n  username: prometheus\n"
                   "  password_file: scrape.pass\n");
  test::Process monitor(
      {HDSTREAM_BINARY, "monitor", metrics, "--http-config", (dir_ / "http.yml").string(),
       "--no-gui", "--stats", "json", "--interval", "500ms", "--duration", "3s"},
      dir_, "monitor");
  ASSERT_EQ(monitor.wait(20s), 0) << monitor.err();
  std::uint64_t healthy = 0;
  std::istringstream lines(monitor.out());
  for (std::string line; std::getline(lines, line);) {
    const auto j = json::parse(line, nullptr, false);
    if (j.is_object() && j.value("type", "") == "aggregate") {
      healthy = std::max<std::uint64_t>(healthy, j.value("healthy", 0));
    }
  }
  EXPECT_EQ(healthy, 1u) << monitor.out() << monitor.err();

  sender.signal(SIGINT);
  EXPECT_EQ(sender.wait(15s), 130) << sender.err();  // interrupted, as asked
  receiver.signal(SIGINT);
  EXPECT_TRUE(receiver.wait(15s)) << receiver.err();
}

}  // namespace
}  // namespace hdstream
