// Which snapshots describe the same feed, and what to call the hosts that sent them. A feed is
// named by its receiving end and stream id ("0@198.18.1.3:9000"): a sender's destination, a
// receiver's listen address (a wildcard listen address takes the host the monitor polled). So
// five receivers that each carry a stream 0 stay five feeds, and a sender pairs with the
// receiver it sends to. Plain C++, no Qt, no I/O.
//   for (const FeedSides& feed : pair_feeds(inputs)) use(feed.send.stream, feed.recv.stream);
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "stats/labeled_snapshot.hpp"

namespace hdstream {

// One source of snapshots as the panel sees it. `fresh_s` is the panel clock time at which
// this data was current (now, in process; the last successful poll, in monitor).
// `polled_from` is the HOST:PORT `hdstream monitor` fetched it from (empty in process).
struct PanelInput {
  LabeledSnapshot source;
  double fresh_s = 0;
  std::string polled_from;
};

struct FeedSide {
  const StreamSnapshot* stream = nullptr;  // null: this side is not known
  const PanelInput* input = nullptr;
  std::string key;   // "stream@HOST:PORT" of the receiving end, as this side names it
  std::string host;  // what to call the host that reported this side
};

struct FeedSides {
  std::uint16_t stream = 0;
  std::string receiver;  // HOST:PORT where the feed is received
  FeedSide send;
  FeedSide recv;
};

// The feeds in `inputs`: receivers first, then senders paired with them. A sender pairs with
// the receiver whose receiving end and stream id it names; failing that (a name in --dest, an
// address in the monitor's list) with the only receiver of that stream id on that port, when
// there is exactly one and exactly one such sender. A host is called by the name it reports,
// unless it reports none or hosts polled at different addresses report the same name (five
// receivers in one namespace are all "vm"): then by its address.
std::vector<FeedSides> pair_feeds(std::span<const PanelInput> inputs);

// "HOST:PORT" split at its last colon ("[v6]:port" keeps the address without brackets).
struct HostPort {
  std::string host;
  std::string port;
};
HostPort split_host_port(const std::string& endpoint);

}  // namespace hdstream
