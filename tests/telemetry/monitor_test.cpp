// `hdstream monitor` over two real hdstream processes (a receiver and a sender, each with
// --metrics-listen): both show up, paired by feed; a protected feed's lost leg shows on its row
// and in /metrics.
#include <gtest/gtest.h>

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <cstdio>
#include <nlohmann/json.hpp>

#include <set>
#include <sstream>

#include "common/clock.hpp"
#include "gui/monitor_inputs.hpp"
#include "http_helpers.hpp"
#include "loopback_feeds.hpp"
#include "telemetry/stats_poller.hpp"
#include "tests/support/free_port.hpp"
#include "tests/support/tcp_relay.hpp"

extern char** environ;

namespace hdstream {
namespace {

using namespace std::chrono_literals;

// A port from tests/support/free_port.hpp, as the Endpoint type holds it.
std::uint16_t free_port() {
  return static_cast<std::uint16_t>(test::free_port());
}

// A child hdstream process; interrupted and reaped on destruction.
class Child {
 public:
  explicit Child(std::vector<std::string> args) {
    args.insert(args.begin(), HDSTREAM_BINARY);
    std::vector<char*> argv;
    for (auto& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    const int rc = posix_spawn(&pid_, HDSTREAM_BINARY, &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) pid_ = -1;
  }
  ~Child() { stop(); }
  bool running() const { return pid_ > 0; }
  // SIGINT (graceful), then reap with a deadline; returns the exit status or -1.
  int stop() {
    if (pid_ <= 0) return exit_code_;
    ::kill(pid_, SIGINT);
    int status = 0;
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (::waitpid(pid_, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, &status, 0);
        break;
      }
      std::this_thread::sleep_for(10ms);
    }
    pid_ = -1;
    exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return exit_code_;
  }

 private:
  pid_t pid_ = -1;
  int exit_code_ = -1;
};

TEST(Monitor, PairsSenderAndReceiverRowsFromTwoProcesses) {
  const auto data_port = free_port();
  const auto recv_metrics = free_port();
  const auto send_metrics = free_port();
  const std::string data = "127.0.0.1:" + std::to_string(data_port);
  Child receiver({"recv", "--listen", data, "--streams", "2", "--no-gui", "--metrics-listen",
                  "127.0.0.1:" + std::to_string(recv_metrics), "--log-level", "warn"});
  ASSERT_TRUE(receiver.running());
  Child sender({"send", "--dest", data, "--streams", "2", "--rate", "20M", "--no-gui",
                "--metrics-listen", "127.0.0.1:" + std::to_string(send_metrics), "--log-level",
                "warn"});
  ASSERT_TRUE(sender.running());

  asio::io_context io;
  auto poller = std::make_shared<StatsPoller>(
      io, std::vector<Endpoint>{{"127.0.0.1", recv_metrics}, {"127.0.0.1", send_metrics}},
      StatsPollerOptions{.interval = 200ms});
  poller->start();
  std::jthread runner([&] { io.run(); });

  PanelModel model;
  const double start_s = 1000;
  double now_s = start_s;
  ASSERT_TRUE(testing::wait_until(
      [&] {
        now_s += 0.1;
        model.update(monitor_inputs(poller->latest(), now_s, wall_clock_ns()), now_s);
        if (model.rows().size() != 2) return false;
        for (const auto& row : model.rows()) {
          if (!row.has_send || !row.has_recv || row.frames < 5) return false;
        }
        return true;
      },
      20s))
      << "rows: " << model.rows().size();
  for (const auto& row : model.rows()) {
    EXPECT_EQ(row.destination, data);
    EXPECT_TRUE(row.has_jitter);
    EXPECT_EQ(row.transport, "tcp");
  }
  const auto hosts = poller->latest();
  EXPECT_EQ(hosts[0].error, "");
  EXPECT_EQ(hosts[1].error, "");
  poller->stop();
  runner.join();

  // The command itself, console mode: its JSON rows pair both sides too.
  const std::string command = std::string(HDSTREAM_BINARY) +
                              " monitor 127.0.0.1:" + std::to_string(recv_metrics) +
                              " 127.0.0.1:" + std::to_string(send_metrics) +
                              " --no-gui --stats json --interval 300ms --poll 100ms "
                              "--duration 1500ms --log-level warn";
  FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char buffer[4096];
  while (std::size_t n = std::fread(buffer, 1, sizeof(buffer), pipe)) output.append(buffer, n);
  EXPECT_EQ(::pclose(pipe), 0);
  std::istringstream lines(output);
  std::string line;
  std::set<int> paired_streams;
  while (std::getline(lines, line)) {
    const auto row = nlohmann::json::parse(line);
    if (row["type"] == "monitor" && row["has_send"] && row["has_recv"]) {
      paired_streams.insert(row["stream"].get<int>());
    }
  }
  EXPECT_EQ(paired_streams, (std::set<int>{0, 1})) << output;

  // An interrupted sender exits 130 (CLI contract) after ending its feeds with END; the
  // receiver then sees every session end cleanly and exits on its own with its verdict.
  EXPECT_EQ(sender.stop(), 130);
  EXPECT_EQ(receiver.stop(), 0);
}

// The value of the sample `series` (name and labels as /metrics spells them) in `body`; -1 when
// there is none.
double metric(const std::string& body, const std::string& series) {
  std::istringstream lines(body);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(series + " ", 0) == 0) return std::stod(line.substr(series.size() + 1));
  }
  return -1;
}

std::string scrape(std::uint16_t port) {
  try {
    return testing::body_of(testing::http_exchange(port, "/metrics"));
  } catch (const boost::system::system_error&) {
    return "";  // not listening (yet, or any more)
  }
}

// A protected feed between two real processes, its leg B through a relay that is cut and then
// restored: the panel's row (from /stats.json, through the monitor's poller) turns amber naming
// leg B while leg A delivers every frame, /metrics counts one leg up on both ends, and with the
// path back both say two legs and the row is green again.
TEST(Monitor, AProtectedFeedThatLosesALegIsAmberOnItsRowAndOneLegUpInMetrics) {
  const auto data_port = free_port();
  const auto recv_metrics = free_port();
  const auto send_metrics = free_port();
  const std::string data = "127.0.0.1:" + std::to_string(data_port);
  Child receiver({"recv", "--listen", data, "--streams", "1", "--no-gui", "--metrics-listen",
                  "127.0.0.1:" + std::to_string(recv_metrics), "--log-level", "error"});
  ASSERT_TRUE(receiver.running());
  // The receiver listens for feeds before it serves /metrics. Until it does, a connection
  // through the relay would be accepted and then reset, and a leg that fails as it opens stays
  // down (a refused one is retried): start the sender once the receiver answers.
  ASSERT_TRUE(testing::wait_until([&] { return !scrape(recv_metrics).empty(); }));
  test::TcpRelay path_b(data_port);
  Child sender({"send", "--dest", data, "--dest-b", "127.0.0.1:" + std::to_string(path_b.port()),
                "--streams", "1", "--rate", "20M", "--no-gui", "--metrics-listen",
                "127.0.0.1:" + std::to_string(send_metrics), "--log-level", "error"});
  ASSERT_TRUE(sender.running());

  asio::io_context io;
  auto poller = std::make_shared<StatsPoller>(
      io, std::vector<Endpoint>{{"127.0.0.1", recv_metrics}, {"127.0.0.1", send_metrics}},
      StatsPollerOptions{.interval = 100ms});
  poller->start();
  std::jthread runner([&] { io.run(); });
  // However the test ends (a failed ASSERT too), the poller stops before the runner is joined:
  // its loop would otherwise keep io.run() going for ever.
  const std::unique_ptr<StatsPoller, void (*)(StatsPoller*)> stop_poller(
      poller.get(), [](StatsPoller* p) { p->stop(); });
  PanelModel model;
  // The panel's clock is the real one: health is judged over seconds of it.
  auto row = [&]() -> const FeedRow* {
    const double now_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    model.update(monitor_inputs(poller->latest(), now_s, wall_clock_ns()), now_s);
    if (model.rows().size() != 1) return nullptr;
    const FeedRow& r = model.rows()[0];
    return r.has_send && r.has_recv && r.is_protected && r.legs.size() == 2 ? &r : nullptr;
  };
  const std::string recv_feed = R"({role="recv",stream="0",transport="tcp")";
  const std::string send_feed = R"({role="send",stream="0",transport="tcp")";
  const std::string recv_leg = R"({role="recv",stream="0",transport="tcp",leg=")";

  // Both paths up: green, both lights on, each leg carrying the feed.
  ASSERT_TRUE(testing::wait_until(
      [&] {
        const FeedRow* r = row();
        return r && r->legs_up == 2 && r->health == Health::good && r->legs[1].mbps > 15;
      },
      20s))
      << (row() ? row()->health_reason : "no protected row");
  EXPECT_TRUE(row()->legs[0].up && row()->legs[1].up);
  EXPECT_EQ(format_legs(*row()), "A \u25cf B \u25cf");
  std::string body = scrape(recv_metrics);
  EXPECT_EQ(metric(body, "hdstream_legs_up" + recv_feed + "}"), 2) << body;
  EXPECT_EQ(metric(body, "hdstream_leg_up" + recv_leg + "A\"}"), 1);
  EXPECT_EQ(metric(body, "hdstream_leg_up" + recv_leg + "B\"}"), 1);
  EXPECT_GT(metric(body, "hdstream_leg_bytes_received_total" + recv_leg + "B\"}"), 0);

  // Path B cut: amber at once, naming leg B; leg A goes on delivering every frame.
  path_b.cut();
  ASSERT_TRUE(testing::wait_until(
      [&] {
        const FeedRow* r = row();
        return r && r->health == Health::warn && !r->legs[1].up;
      },
      15s))
      << (row() ? row()->health_reason : "no protected row");
  EXPECT_EQ(row()->health_reason, "one leg down (leg B)");
  EXPECT_TRUE(row()->legs[0].up);
  EXPECT_EQ(row()->legs_up, 1u);
  const std::uint64_t frames_at_cut = row()->frames;
  ASSERT_TRUE(testing::wait_until(
      [&] {
        const FeedRow* r = row();
        return r && r->frames > frames_at_cut + 30 && !r->legs[1].up;
      },
      10s));
  EXPECT_EQ(row()->health, Health::warn);
  EXPECT_EQ(row()->drops, 0u) << "leg A carried every frame";
  ASSERT_TRUE(testing::wait_until([&] {
    return metric(scrape(recv_metrics), "hdstream_legs_up" + recv_feed + "}") == 1 &&
           metric(scrape(send_metrics), "hdstream_legs_up" + send_feed + "}") == 1;
  }));
  body = scrape(recv_metrics);
  EXPECT_EQ(metric(body, "hdstream_leg_up" + recv_leg + "A\"}"), 1) << body;
  EXPECT_EQ(metric(body, "hdstream_leg_up" + recv_leg + "B\"}"), 0) << body;

  // The path is back: two legs on both ends, and the row green again.
  path_b.restore();
  ASSERT_TRUE(testing::wait_until(
      [&] {
        const FeedRow* r = row();
        return r && r->legs_up == 2 && r->health == Health::good;
      },
      20s))
      << (row() ? row()->health_reason : "no protected row");
  EXPECT_EQ(metric(scrape(send_metrics), "hdstream_legs_up" + send_feed + "}"), 2);
  EXPECT_EQ(row()->drops, 0u);
  poller->stop();  // before the processes go: no warnings about hosts that no longer answer

  EXPECT_EQ(sender.stop(), 130);
  EXPECT_EQ(receiver.stop(), 0);
}

}  // namespace
}  // namespace hdstream
