// Topology files: valid ones parse, hostile ones fail with one line naming file:line:col.
#include <gtest/gtest.h>

#include <string>

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

TEST(Scenario, ReadsAnMtcpRunsLatencyBudgetAndSubconnections) {
  const std::string text = std::string("[link]\nrtt=\"100ms\"\n") + kSites +
                           "[[run]]\nlabel=\"m\"\nmode=\"send\"\nrate=\"270M\"\nduration=\"6s\"\n"
                           "transport=\"mtcp\"\nconns=4\nlatency=\"1s\"\n";
  const auto scenario = wan::parse_scenario_text(text, "s.toml");
  ASSERT_EQ(scenario.runs.size(), 1u);
  EXPECT_EQ(scenario.runs[0].conns, 4u);
  EXPECT_EQ(scenario.runs[0].latency, std::chrono::seconds(1));
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

}  // namespace
}  // namespace hdstream::linkemu
