// Which snapshots are one feed: receivers keyed by their receiving end, senders paired by the
// end they name, the fallback when names and addresses differ, and the names hosts get.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "gui/feed_pairing.hpp"
#include "gui/panel_model.hpp"

namespace hdstream {
namespace {

// A source with streams 0..count-1 of `bytes` each; `polled_from` empty means in process.
PanelInput source(Role role, std::string host, std::string endpoint, std::string polled_from,
                  std::uint16_t count = 1, std::uint64_t bytes = 1000, double t = 1.0) {
  PanelInput input;
  input.source.host = std::move(host);
  input.source.endpoint = std::move(endpoint);
  input.source.snapshot.role = role;
  input.source.snapshot.t = t;
  for (std::uint16_t i = 0; i < count; ++i) {
    StreamSnapshot s;
    s.stream = i;
    s.state = StreamState::running;
    s.transport = "tcp";
    s.bytes = bytes;
    s.frames = bytes / 100;
    input.source.snapshot.streams.push_back(s);
  }
  input.fresh_s = t;
  input.polled_from = std::move(polled_from);
  return input;
}

TEST(FeedPairing, SplitsHostAndPortOfIpv4Ipv6AndNames) {
  EXPECT_EQ(split_host_port("198.18.1.3:9000").host, "198.18.1.3");
  EXPECT_EQ(split_host_port("198.18.1.3:9000").port, "9000");
  EXPECT_EQ(split_host_port("[2001:db8::1]:9000").host, "2001:db8::1");
  EXPECT_EQ(split_host_port("[2001:db8::1]:9000").port, "9000");
  EXPECT_EQ(split_host_port("portland-3").host, "portland-3");
  EXPECT_EQ(split_host_port("portland-3").port, "");
}

TEST(FeedPairing, ReceiversOnFiveHostsWithOneStreamZeroEachAreFiveFeeds) {
  std::vector<PanelInput> inputs;
  for (int h = 1; h <= 5; ++h) {
    inputs.push_back(source(Role::recv, "vm", "0.0.0.0:9000", fmt::format("198.18.1.{}:9100", h)));
  }
  const auto feeds = pair_feeds(inputs);
  ASSERT_EQ(feeds.size(), 5u);
  for (int h = 1; h <= 5; ++h) {
    const auto& feed = feeds[static_cast<std::size_t>(h - 1)];
    EXPECT_EQ(feed.stream, 0);
    EXPECT_EQ(feed.receiver, fmt::format("198.18.1.{}:9000", h));
    EXPECT_EQ(feed.recv.key, fmt::format("0@198.18.1.{}:9000", h));
    EXPECT_EQ(feed.recv.host, fmt::format("198.18.1.{}", h));  // "vm" names none of them
    EXPECT_EQ(feed.send.stream, nullptr);
  }
}

TEST(FeedPairing, HostsKeepTheirOwnNamesAndOneMachinesProcessesShareOne) {
  // Two processes on one machine (polled at one address, different ports): one name is right.
  const std::vector<PanelInput> inputs{
      source(Role::recv, "portland-1", "0.0.0.0:9000", "198.18.1.1:9100"),
      source(Role::send, "portland-1", "198.18.1.9:9000", "198.18.1.1:9101"),
      source(Role::recv, "portland-2", "0.0.0.0:9000", "198.18.1.2:9100"),
  };
  const auto feeds = pair_feeds(inputs);
  ASSERT_EQ(feeds.size(), 3u);
  EXPECT_EQ(feeds[0].recv.host, "portland-1");
  EXPECT_EQ(feeds[1].recv.host, "portland-2");
  EXPECT_EQ(feeds[2].send.host, "portland-1");
  EXPECT_EQ(feeds[2].receiver, "198.18.1.9:9000");
}

TEST(FeedPairing, ANameAgainstAnAddressPairsOnlyWhenNothingElseCouldBeMeant) {
  // One sender and one receiver of stream 0 on port 9000: the same feed, however named.
  {
    const std::vector<PanelInput> inputs{
        source(Role::send, "seattle", "portland.example:9000", "10.0.0.1:9100"),
        source(Role::recv, "portland", "0.0.0.0:9000", "10.0.0.5:9100"),
    };
    const auto feeds = pair_feeds(inputs);
    ASSERT_EQ(feeds.size(), 1u);
    EXPECT_NE(feeds[0].send.stream, nullptr);
    EXPECT_NE(feeds[0].recv.stream, nullptr);
    EXPECT_EQ(feeds[0].recv.key, "0@10.0.0.5:9000");
  }
  // Two of each: which name is which address is unknown, so nothing is paired by guess.
  {
    const std::vector<PanelInput> inputs{
        source(Role::send, "seattle-1", "portland-1.example:9000", "10.0.0.1:9100"),
        source(Role::send, "seattle-2", "portland-2.example:9000", "10.0.0.2:9100"),
        source(Role::recv, "portland-1", "0.0.0.0:9000", "10.0.1.1:9100"),
        source(Role::recv, "portland-2", "0.0.0.0:9000", "10.0.1.2:9100"),
    };
    const auto feeds = pair_feeds(inputs);
    ASSERT_EQ(feeds.size(), 4u);
    for (const auto& feed : feeds) {
      EXPECT_TRUE((feed.send.stream == nullptr) != (feed.recv.stream == nullptr)) << feed.receiver;
    }
  }
}

TEST(FeedPairing, AHostListedTwiceIsShownOnce) {
  const std::vector<PanelInput> inputs{
      source(Role::recv, "portland", "198.18.1.1:9000", "198.18.1.1:9100", 2),
      source(Role::recv, "portland", "198.18.1.1:9000", "portland:9100", 2),
  };
  EXPECT_EQ(pair_feeds(inputs).size(), 2u);
}

// A sender polled before its receiver answers, then both: the feed keeps the one row it had,
// rather than leaving a stale sender-only row behind.
TEST(FeedPairing, APairFoundLaterKeepsItsRowInThePanel) {
  PanelModel model;
  const PanelInput sender = source(Role::send, "seattle", "portland.example:9000", "10.0.0.1:9100");
  model.update(std::vector<PanelInput>{sender}, 1.0);
  ASSERT_EQ(model.rows().size(), 1u);
  EXPECT_EQ(model.rows()[0].key, "0@portland.example:9000");
  const std::vector<PanelInput> both{
      source(Role::send, "seattle", "portland.example:9000", "10.0.0.1:9100", 1, 2000, 2.0),
      source(Role::recv, "portland", "0.0.0.0:9000", "10.0.0.5:9100", 1, 2000, 2.0),
  };
  model.update(both, 2.0);
  ASSERT_EQ(model.rows().size(), 1u);
  EXPECT_TRUE(model.rows()[0].has_send && model.rows()[0].has_recv);
  EXPECT_EQ(model.rows()[0].hosts, "seattle \u2192 portland");
  EXPECT_EQ(model.rows()[0].label, "#0");
}

}  // namespace
}  // namespace hdstream
