// The SC99 layout on loopback: five receiver hosts (127.0.0.2-6, the same listen and metrics
// ports on each), every one carrying its own stream 0 from its own sender, and
// `hdstream monitor` over the five: five rows with five hosts, and an aggregate that is their sum.
#include <gtest/gtest.h>

#include <csignal>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "tests/support/eventually.hpp"
#include "tests/support/process.hpp"
#include "tests/support/stats_lines.hpp"

namespace hdstream {
namespace {

using namespace std::chrono_literals;

constexpr int kHosts = 5;
constexpr double kRateMbps = 20.0;
constexpr double kFps = 30000.0 / 1001.0;

std::string host_address(int index) {
  return fmt::format("127.0.0.{}", index + 2);
}

// Frames a receiver has counted on its stream 0 (its last interval line), or 0.
long frames_received(const test::Process& recv) {
  long frames = 0;
  for (const auto& line : test::json_lines(recv.out())) {
    if (line.at("type") == "interval" && line.at("stream") == 0) frames = line.at("frames");
  }
  return frames;
}

TEST(MonitorHosts, FiveHostsWithAStreamZeroEachAreFiveRowsAndTheAggregateIsTheirSum) {
  const auto dir = test::scratch_dir("monitor-hosts");
  const int data_port = test::free_port();
  const int metrics_port = test::free_port();
  std::vector<std::unique_ptr<test::Process>> receivers, senders;
  std::vector<std::string> watched;
  std::set<std::string> destinations, hosts;
  for (int h = 0; h < kHosts; ++h) {
    const std::string host = host_address(h);
    const std::string data = fmt::format("{}:{}", host, data_port);
    const std::string metrics = fmt::format("{}:{}", host, metrics_port);
    receivers.push_back(std::make_unique<test::Process>(
        std::vector<std::string>{HDSTREAM_BINARY, "recv", "--listen", data, "--streams", "1",
                                 "--no-gui", "--metrics-listen", metrics, "--stats", "json",
                                 "--interval", "200ms", "--log-level", "warn"},
        dir, fmt::format("recv{}", h)));
    senders.push_back(std::make_unique<test::Process>(
        std::vector<std::string>{HDSTREAM_BINARY, "send", "--dest", data, "--rate",
                                 fmt::format("{}M", kRateMbps), "--no-gui", "--log-level", "warn"},
        dir, fmt::format("send{}", h)));
    watched.push_back(metrics);
    destinations.insert(data);
    hosts.insert(host);
  }
  for (int h = 0; h < kHosts; ++h) {
    auto& recv = *receivers[static_cast<std::size_t>(h)];
    ASSERT_TRUE(test::eventually([&] { return frames_received(recv) >= 10; }))
        << host_address(h) << ": " << recv.err();
  }

  std::vector<std::string> monitor_args{HDSTREAM_BINARY, "monitor"};
  monitor_args.insert(monitor_args.end(), watched.begin(), watched.end());
  monitor_args.insert(monitor_args.end(),
                      {"--no-gui", "--stats", "json", "--interval", "500ms", "--poll", "100ms",
                       "--duration", "3s", "--log-level", "warn"});
  test::Process monitor(monitor_args, dir, "monitor");
  ASSERT_EQ(monitor.wait(30s), 0) << monitor.err();

  // The last interval: its feed rows and the aggregate line that closes it.
  const auto lines = test::json_lines(monitor.out());
  const auto aggregate = test::find_line(monitor.out(), "aggregate");
  ASSERT_TRUE(aggregate) << monitor.out();
  std::vector<nlohmann::json> rows;
  for (const auto& line : lines) {
    if (line.at("type") == "monitor" && line.at("t") == aggregate->at("t")) rows.push_back(line);
  }
  ASSERT_EQ(rows.size(), static_cast<std::size_t>(kHosts)) << monitor.out();
  std::set<std::string> row_destinations, row_hosts;
  double sum_mbps = 0;
  // A 1 s rate window holds 29 or 30 frames of this feed: one frame either way is the most a
  // paced feed's shown rate may differ from its nominal rate; allow two.
  const double frame_mbps = kRateMbps / kFps;
  for (const auto& row : rows) {
    EXPECT_EQ(row.at("stream"), 0) << row;
    EXPECT_TRUE(row.at("has_recv").get<bool>()) << row;
    EXPECT_EQ(row.at("health"), "good") << row;
    EXPECT_EQ(row.at("drops"), 0) << row;
    EXPECT_NEAR(row.at("mbps").get<double>(), kRateMbps, 2 * frame_mbps) << row;
    EXPECT_EQ(row.at("hosts"), "? \u2192 " + row.at("receiver_host").get<std::string>()) << row;
    row_destinations.insert(row.at("destination").get<std::string>());
    row_hosts.insert(row.at("receiver_host").get<std::string>());
    sum_mbps += row.at("mbps").get<double>();
  }
  EXPECT_EQ(row_destinations, destinations);
  EXPECT_EQ(row_hosts, hosts);
  EXPECT_EQ(aggregate->at("role"), "monitor");
  EXPECT_EQ(aggregate->at("streams"), kHosts);
  EXPECT_EQ(aggregate->at("healthy"), kHosts);
  EXPECT_EQ(aggregate->at("drops"), 0);
  // The sum of the rows as printed (each rounded to 0.001 Mbps; exact halves allowed for).
  EXPECT_NEAR(aggregate->at("mbps").get<double>(), sum_mbps, (kHosts + 1) * 0.0005 * (1 + 1e-9));
  EXPECT_NEAR(aggregate->at("mbps").get<double>(), kHosts * kRateMbps, kHosts * 2 * frame_mbps);
  EXPECT_DOUBLE_EQ(aggregate->at("planned_mbps").get<double>(), kHosts * kRateMbps);

  // Interrupted senders end their feeds (130); each receiver then ends with its verdict.
  for (int h = 0; h < kHosts; ++h) {
    auto& send = *senders[static_cast<std::size_t>(h)];
    send.signal(SIGINT);
    EXPECT_EQ(send.wait(20s), 130) << send.err();
  }
  for (int h = 0; h < kHosts; ++h) {
    auto& recv = *receivers[static_cast<std::size_t>(h)];
    EXPECT_EQ(recv.wait(20s), 0) << host_address(h) << ": " << recv.err();
  }
}

}  // namespace
}  // namespace hdstream
