// Topology files: valid ones parse, hostile ones fail with one line naming file:line:col.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "tests/wan/scenario.hpp"
#include "tools/linkemu/topology.hpp"

namespace hdstream::linkemu {
namespace {

constexpr const char* kSites = "[[site]]\nname = \"a\"\nhosts = 5\n[[site]]\nname = \"b\"\n";

TEST(Topology, ParsesLinkAndSites) {
  const auto t = parse_topology_text(
      std::string("[link]\nrtt = \"97ms\"\nrate = \"1G\"\nqueue = \"0.5bdp\"\nmtu = 4470\n"
                  "loss = 0.001\njitter = \"1ms\"\n") +
          kSites,
      "ok.toml");
  EXPECT_EQ(t.link.one_way_delay, std::chrono::microseconds(48500));
  EXPECT_EQ(t.link.rate_bps, 1'000'000'000u);
  EXPECT_EQ(t.link.queue_bytes, 12'125'000u / 2);
  EXPECT_EQ(t.link.mtu_bytes, 4470u);
  ASSERT_EQ(t.sites.size(), 2u);
  EXPECT_EQ(t.sites[0].hosts.size(), 5u);
  EXPECT_EQ(t.sites[0].hosts[4], "198.18.0.5");
  EXPECT_EQ(t.sites[1].hosts[0], "198.18.1.1");
}

struct Hostile {
  const char* text;
  const char* expected;  // a fragment of the one-line message
};

class HostileTopology : public ::testing::TestWithParam<Hostile> {};

TEST_P(HostileTopology, RejectedWithOneLine) {
  try {
    parse_topology_text(GetParam().text, "bad.toml");
    FAIL() << "accepted: " << GetParam().text;
  } catch (const ConfigError& error) {
    const std::string message = error.what();
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    EXPECT_EQ(message.rfind("bad.toml:", 0), 0u) << message;
    EXPECT_NE(message.find(GetParam().expected), std::string::npos) << message;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Files, HostileTopology,
    ::testing::Values(
        Hostile{"[link\nrtt = 1", "bad.toml:1:"},
        Hostile{"[link]\nrtt = \"fast\"\n[[site]]\nname=\"a\"\n[[site]]\nname=\"b\"\n", "rtt"},
        Hostile{"[link]\nrtt = 97\n[[site]]\nname=\"a\"\n[[site]]\nname=\"b\"\n",
                "must be a string"},
        Hostile{"[link]\nmtu = 100\n[[site]]\nname=\"a\"\n[[site]]\nname=\"b\"\n", "mtu"},
        Hostile{"[link]\nloss = 1.5\n[[site]]\nname=\"a\"\n[[site]]\nname=\"b\"\n", "loss"},
        Hostile{"[link]\nlos = 0.1\n[[site]]\nname=\"a\"\n[[site]]\nname=\"b\"\n",
                "unknown key 'los'"},
        Hostile{"[link]\nqueue = \"1bdp\"\n[[site]]\nname=\"a\"\n[[site]]\nname=\"b\"\n",
                "BDP needs"},
        Hostile{
            "[link]\nrtt = \"2ms\"\njitter = \"5ms\"\n[[site]]\nname=\"a\"\n[[site]]\nname=\"b\"\n",
            "jitter"},
        Hostile{"[[site]]\nname=\"a\"\n", "2 to 8"},
        Hostile{"[[site]]\nname=\"a\"\n[[site]]\nname=\"a\"\n", "used twice"},
        Hostile{"[[site]]\nname=\"A;rm\"\n[[site]]\nname=\"b\"\n", "a-z"},
        Hostile{"[[site]]\nname=\"a\"\naddresses=[\"10.0.0.1\"]\n[[site]]\nname=\"b\"\n",
                "198.18.0.0/15"},
        Hostile{"[[site]]\nname=\"a\"\nhosts=100000\n[[site]]\nname=\"b\"\n", "hosts"},
        Hostile{"", "no [[site]]"}),
    [](const ::testing::TestParamInfo<Hostile>& param_info) {
      return "case" + std::to_string(param_info.index);
    });

TEST(Topology, PathBIsASecondIndependentPathOnTheSameHostsIn198_19) {
  const auto t = parse_topology_text(
      std::string("[link]\nrtt = \"20ms\"\n"
                  "[path_b]\nrtt = \"35ms\"\nrate = \"50M\"\nqueue = \"2bdp\"\nmtu = 9000\n"
                  "loss = 0.01\njitter = \"2ms\"\n"
                  "[path_b.burst]\np_enter_bad = 0.001\np_leave_bad = 0.5\n") +
          kSites,
      "two.toml");
  ASSERT_TRUE(t.path_b.has_value());
  EXPECT_EQ(t.paths(), (std::vector<Path>{Path::a, Path::b}));
  EXPECT_TRUE(t.has(Path::b));
  const LinkProfile& b = t.profile(Path::b);
  EXPECT_EQ(b.one_way_delay, std::chrono::microseconds(17500));
  EXPECT_EQ(b.rate_bps, 50'000'000u);
  EXPECT_EQ(b.queue_bytes, 2 * b.bdp_bytes());
  EXPECT_EQ(b.mtu_bytes, 9000u);
  EXPECT_DOUBLE_EQ(b.random_loss, 0.01);
  EXPECT_EQ(b.jitter, std::chrono::milliseconds(2));
  EXPECT_DOUBLE_EQ(b.burst.p_enter_bad, 0.001);
  EXPECT_DOUBLE_EQ(b.burst.p_leave_bad, 0.5);
  // Path A is [link] alone: nothing of path B leaks into it, nor the other way round.
  EXPECT_EQ(t.link.one_way_delay, std::chrono::milliseconds(10));
  EXPECT_EQ(t.link.rate_bps, 0u);
  EXPECT_EQ(t.link.mtu_bytes, 1500u);
  EXPECT_EQ(t.link.random_loss, 0.0);
  EXPECT_FALSE(t.link.burst.enabled());
  EXPECT_EQ(&t.profile(Path::a), &t.link);
  // Same host numbering, second octet 19.
  EXPECT_EQ(t.sites[0].hosts_on(Path::a), t.sites[0].hosts);
  EXPECT_EQ(t.sites[0].hosts_on(Path::b),
            (std::vector<std::string>{"198.19.0.1", "198.19.0.2", "198.19.0.3", "198.19.0.4",
                                      "198.19.0.5"}));
  EXPECT_EQ(t.sites[1].hosts_on(Path::b), (std::vector<std::string>{"198.19.1.1"}));
}

TEST(Topology, PathBDefaultsAreTheLinkDefaultsNotPathAsValues) {
  const auto t = parse_topology_text(
      std::string("[link]\nrtt = \"20ms\"\nrate = \"1G\"\nloss = 0.1\n[path_b]\n") + kSites,
      "x.toml");
  ASSERT_TRUE(t.path_b.has_value());
  EXPECT_EQ(t.path_b->one_way_delay.count(), 0);
  EXPECT_EQ(t.path_b->rate_bps, 0u);
  EXPECT_EQ(t.path_b->random_loss, 0.0);
  EXPECT_EQ(t.path_b->queue_bytes, 256u * 1024);
}

TEST(Topology, WithoutPathBThereIsOnlyPathAAndAll198_18Slash15StaysUsable) {
  const auto t = parse_topology_text(
      "[[site]]\nname = \"a\"\naddresses = [\"198.19.0.7\"]\n[[site]]\nname = \"b\"\n", "x.toml");
  EXPECT_FALSE(t.path_b.has_value());
  EXPECT_EQ(t.paths(), std::vector<Path>{Path::a});
  EXPECT_FALSE(t.has(Path::b));
  EXPECT_THROW(t.profile(Path::b), std::invalid_argument);
  EXPECT_EQ(t.sites[0].hosts_on(Path::a), std::vector<std::string>{"198.19.0.7"});
}

TEST(Topology, AddressOnPathBMovesTheHostTo198_19) {
  EXPECT_EQ(address_on(Path::b, "198.18.3.200"), "198.19.3.200");
  EXPECT_EQ(address_on(Path::b, "198.18.0.1"), "198.19.0.1");
  EXPECT_EQ(address_on(Path::a, "198.18.3.200"), "198.18.3.200");
  EXPECT_THROW(address_on(Path::b, "198.19.0.1"), std::invalid_argument);
  EXPECT_THROW(address_on(Path::b, "10.0.0.1"), std::invalid_argument);
  EXPECT_THROW(address_on(Path::b, "198.18.0"), std::invalid_argument);
  EXPECT_THROW(address_on(Path::invalid, "198.18.0.1"), std::invalid_argument);
  EXPECT_EQ(to_string(Path::a), "a");
  EXPECT_EQ(to_string(Path::b), "b");
}

TEST(Topology, AnErrorInPathBNamesItsOwnLineAndTable) {
  try {
    parse_topology_text(std::string("[link]\nrtt = \"20ms\"\n[path_b]\nrtt = \"35ms\"\n"
                                    "los = 0.1\n") +
                            kSites,
                        "bad.toml");
    FAIL() << "accepted";
  } catch (const ConfigError& error) {
    EXPECT_STREQ(error.what(), "bad.toml:5:7: unknown key 'los' in [path_b]");
  }
}

struct HostilePathB {
  std::string text;      // before the [[site]] tables
  std::string expected;  // a fragment of the one-line message
};

class HostilePathBTopology : public ::testing::TestWithParam<HostilePathB> {};

TEST_P(HostilePathBTopology, RejectedWithOneLine) {
  const std::string text = GetParam().text + "\n[[site]]\nname=\"a\"\n[[site]]\nname=\"b\"\n";
  try {
    parse_topology_text(text, "bad.toml");
    FAIL() << "accepted: " << text;
  } catch (const ConfigError& error) {
    const std::string message = error.what();
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    EXPECT_EQ(message.rfind("bad.toml:", 0), 0u) << message;
    EXPECT_NE(message.find(GetParam().expected), std::string::npos) << message;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Files, HostilePathBTopology,
    ::testing::Values(
        HostilePathB{"[path_b]\nlossy = 0.1", "unknown key 'lossy' in [path_b]"},
        HostilePathB{"path_b = 5", "'path_b' must be a table"},
        HostilePathB{"path_b = \"35ms\"", "'path_b' must be a table"},
        HostilePathB{"[[path_b]]\nrtt = \"1ms\"", "'path_b' must be a table"},
        HostilePathB{"[path_b]\nrtt = \"1ms\"\n[path_b]\nrtt = \"2ms\"", "bad.toml:3:"},
        HostilePathB{"[path_b\nrtt = \"1ms\"", "bad.toml:1:"},
        HostilePathB{"[path_b]\nrtt = \"fast\"", "'rtt'"},
        HostilePathB{"[path_b]\nrtt = \"35ms; rm -rf /\"", "'rtt'"},
        HostilePathB{"[path_b]\nrtt = 35", "'rtt' must be a string"},
        HostilePathB{"[path_b]\nrtt = \"20s\"", "'rtt' must be at most 10s"},
        HostilePathB{"[path_b]\nrtt = \"99999999999999999999999ms\"", "'rtt'"},
        HostilePathB{"[path_b]\nrate = \"200G\"", "'rate' must be at most 100G"},
        HostilePathB{"[path_b]\nrate = \"-5M\"", "'rate'"},
        HostilePathB{"[path_b]\nloss = 1", "'loss' must be below 1"},
        HostilePathB{"[path_b]\nloss = -0.5", "'loss' must be between 0 and 1"},
        HostilePathB{"[path_b]\nloss = nan", "'loss' must be between 0 and 1"},
        HostilePathB{"[path_b]\nloss = \"2%\"", "'loss' must be a number"},
        HostilePathB{"[path_b]\nmtu = 70000", "'mtu'"},
        HostilePathB{"[path_b]\nmtu = 1500.5", "'mtu'"},
        HostilePathB{"[path_b]\nrtt = \"2ms\"\njitter = \"5ms\"", "'jitter'"},
        HostilePathB{"[path_b]\nqueue = \"1bdp\"", "BDP needs"},
        HostilePathB{"[path_b]\nrate = \"1G\"\nqueue = \"100\"", "at least one MTU"},
        HostilePathB{"[path_b]\nburst = 3", "'burst' must be a table"},
        HostilePathB{"[path_b.burst]\np_enter = 0.1", "unknown key 'p_enter' in [path_b.burst]"},
        HostilePathB{"[path_b.burst]\np_enter_bad = 0.1\np_leave_bad = 0", "'p_leave_bad'"},
        HostilePathB{"[path_b.burst]\np_enter_bad = 2", "'p_enter_bad' must be between 0 and 1"},
        // With [path_b], 198.19.0.0/16 is path B's: no site may claim an address there.
        HostilePathB{"[path_b]\n[[site]]\nname=\"c\"\naddresses=[\"198.19.0.7\"]", "path B's"}),
    [](const ::testing::TestParamInfo<HostilePathB>& param_info) {
      return "case" + std::to_string(param_info.index);
    });

TEST(Scenario, ReadsAnMtcpRunsLatencyBudgetAndSubconnections) {
  const std::string text = std::string("[link]\nrtt=\"100ms\"\n") + kSites +
                           "[[run]]\nlabel=\"m\"\nmode=\"send\"\nrate=\"270M\"\nduration=\"6s\"\n"
                           "transport=\"mtcp\"\nconns=4\nlatency=\"1s\"\n";
  const auto scenario = wan::parse_scenario_text(text, "s.toml");
  ASSERT_EQ(scenario.runs.size(), 1u);
  EXPECT_EQ(scenario.runs[0].conns, 4u);
  EXPECT_EQ(scenario.runs[0].latency, std::chrono::seconds(1));
}

TEST(Scenario, ReadsAProtectedRunAndItsCut) {
  const std::string text = std::string("[link]\nrtt=\"4ms\"\n[path_b]\nrtt=\"6ms\"\n") + kSites +
                           "[[run]]\nlabel=\"p\"\nmode=\"send\"\nrate=\"270M\"\n"
                           "duration=\"20s\"\nprotect=true\n"
                           "cut={path=\"a\", at=\"4s\", length=\"10s\"}\n";
  const auto scenario = wan::parse_scenario_text(text, "s.toml");
  ASSERT_EQ(scenario.runs.size(), 1u);
  const auto& run = scenario.runs[0];
  EXPECT_TRUE(run.protect);
  ASSERT_TRUE(run.cut);
  EXPECT_EQ(run.cut->path, Path::a);
  EXPECT_EQ(run.cut->at, std::chrono::seconds(4));
  EXPECT_EQ(run.cut->length, std::chrono::seconds(10));
  EXPECT_TRUE(scenario.topology.has(Path::b));
}

TEST(Scenario, RejectsMalformedRunsWithOneLine) {
  const std::string base = std::string("[link]\nrtt=\"4ms\"\n") + kSites;
  const char* runs[] = {
      "[[run]]\nlabel=\"x\"\nmode=\"send\"\nduration=\"1s\"\n",  // no rate
      "[[run]]\nlabel=\"x\"\nmode=\"fly\"\nduration=\"1s\"\n",
      "[[run]]\nlabel=\"x\"\nmode=\"bench\"\n",  // no duration
      "[[run]]\nlabel=\"x\"\nmode=\"bench\"\nduration=\"1s\"\nstreams=0\n",
      "[[run]]\nlabel=\"x\"\nmode=\"bench\"\nduration=\"1s\"\nexpect={at_least_run=\"y\", "
      "at_least_factor=1}\n",
      "[[run]]\nlabel=\"x\"\nmode=\"bench\"\nduration=\"1s\"\nprocesses=2\nstreams=2\n",  // b: 1
                                                                                          // host
      "[[run]]\nlabel=\"x\"\nmode=\"bench\"\nduration=\"1s\"\nturbo=true\n",
      // latency is a send run's budget; conns are mtcp's sub-connections
      "[[run]]\nlabel=\"x\"\nmode=\"bench\"\nduration=\"1s\"\nlatency=\"1s\"\n",
      "[[run]]\nlabel=\"x\"\nmode=\"send\"\nrate=\"270M\"\nduration=\"1s\"\nconns=4\n",
      "[[run]]\nlabel=\"x\"\nmode=\"send\"\nrate=\"270M\"\nduration=\"1s\"\ntransport=\"mtcp\"\n"
      "conns=99\n",
      "[[run]]\nlabel=\"x\"\nmode=\"send\"\nrate=\"270M\"\nduration=\"1s\"\nlatency=\"soon\"\n",
      // two paths: protect needs [path_b] (this base has none), a cut a path and a length,
      // ending before the run does
      "[[run]]\nlabel=\"x\"\nmode=\"send\"\nrate=\"270M\"\nduration=\"9s\"\nprotect=true\n",
      "[[run]]\nlabel=\"x\"\nmode=\"send\"\nrate=\"270M\"\nduration=\"9s\"\nprotect=1\n",
      "[[run]]\nlabel=\"x\"\nmode=\"send\"\nrate=\"270M\"\nduration=\"9s\"\n"
      "cut={path=\"b\", length=\"1s\"}\n",
      "[[run]]\nlabel=\"x\"\nmode=\"send\"\nrate=\"270M\"\nduration=\"9s\"\n"
      "cut={path=\"c\", length=\"1s\"}\n",
      "[[run]]\nlabel=\"x\"\nmode=\"send\"\nrate=\"270M\"\nduration=\"9s\"\ncut={path=\"a\"}\n",
      "[[run]]\nlabel=\"x\"\nmode=\"send\"\nrate=\"270M\"\nduration=\"9s\"\n"
      "cut={path=\"a\", at=\"5s\", length=\"4s\"}\n",
      "[[run]]\nlabel=\"x\"\nmode=\"send\"\nrate=\"270M\"\nduration=\"9s\"\n"
      "cut={path=\"a\", length=\"1s\", when=\"now\"}\n",
      "[[run]]\nlabel=\"x\"\nmode=\"send\"\nrate=\"270M\"\nduration=\"9s\"\ncut=\"a\"\n",
  };
  for (const char* run : runs) {
    try {
      wan::parse_scenario_text(base + run, "s.toml");
      ADD_FAILURE() << "accepted: " << run;
    } catch (const ConfigError& error) {
      const std::string message = error.what();
      EXPECT_EQ(message.find('\n'), std::string::npos) << message;
      EXPECT_EQ(message.rfind("s.toml:", 0), 0u) << message;
    }
  }
}

// The short version scales what costs CPU (the paths' rates and queues, each feed's rate) and
// what is expected of it; the delays, the loss, the MTU and the seed's own figure stay.
TEST(Scenario, TheShortVersionRunsEveryRateAtItsScale) {
  const std::string text =
      std::string(
          "short_scale = 0.25\n[link]\nrtt=\"4ms\"\nrate=\"2G\"\nqueue=\"8M\"\n"
          "loss=0.001\nmtu=9000\n[path_b]\nrtt=\"6ms\"\nrate=\"1G\"\nqueue=\"1bdp\"\n") +
      kSites +
      "[[run]]\nlabel=\"p\"\nmode=\"send\"\nrate=\"270M\"\nduration=\"6s\"\n"
      "seed_mbps=1350\nexpect={min_mbps=1282}\n";
  const auto full = wan::parse_scenario_text(text, "s.toml");
  EXPECT_EQ(full.short_scale, 0.25);
  EXPECT_EQ(full.topology.link.rate_bps, 2'000'000'000u);  // parsing alone changes nothing

  const auto short_run = wan::short_version(full);
  const auto& a = short_run.topology.link;
  const auto& b = *short_run.topology.path_b;
  EXPECT_EQ(a.rate_bps, 500'000'000u);
  EXPECT_EQ(a.queue_bytes, 2u << 20);  // 8 MiB at a quarter of the rate: the same time queued
  EXPECT_EQ(b.rate_bps, 250'000'000u);
  EXPECT_EQ(b.queue_bytes, 187'500u);  // still 1 BDP: 250 Mbps x 6 ms / 8
  EXPECT_EQ(a.one_way_delay, full.topology.link.one_way_delay);
  EXPECT_EQ(a.random_loss, 0.001);
  EXPECT_EQ(a.mtu_bytes, 9000u);
  EXPECT_EQ(short_run.runs[0].rate_bps, 67'500'000u);
  EXPECT_DOUBLE_EQ(short_run.runs[0].expect.min_mbps, 320.5);
  EXPECT_EQ(short_run.runs[0].seed_mbps, 1350);
  EXPECT_EQ(short_run.runs[0].duration, full.runs[0].duration);
}

TEST(Scenario, AShortScaleOutsideZeroToOneIsRefused) {
  const std::string rest = std::string("[link]\nrtt=\"4ms\"\n") + kSites +
                           "[[run]]\nlabel=\"x\"\nmode=\"bench\"\nduration=\"1s\"\n";
  EXPECT_EQ(wan::parse_scenario_text(rest, "s.toml").short_scale, 1.0);  // by default: as given
  for (const char* scale : {"0", "-0.5", "1.5", "nan", "inf", "\"half\""}) {
    try {
      wan::parse_scenario_text(std::string("short_scale = ") + scale + "\n" + rest, "s.toml");
      ADD_FAILURE() << "accepted short_scale = " << scale;
    } catch (const ConfigError& error) {
      EXPECT_NE(std::string(error.what()).find("short_scale"), std::string::npos) << error.what();
    }
  }
}

}  // namespace
}  // namespace hdstream::linkemu
