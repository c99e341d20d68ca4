// A snapshot with what it is about: the host that took it and the feed endpoint it serves
// (a sender's destination, a receiver's listen address). What /stats.json, the monitor and the
// panel exchange.
//   LabeledSnapshot s{"studio-a", "198.18.0.2:9000", registry.read()};
#pragma once

#include <string>

#include "stats/snapshot.hpp"

namespace hdstream {

struct LabeledSnapshot {
  std::string host;      // who reported it (hostname, or the HOST:PORT it was polled from)
  std::string endpoint;  // send: destination HOST:PORT; recv: listen HOST:PORT
  Snapshot snapshot;
};

// Fills `mbps` of every stream, and of each leg of a protected one, from the bytes counted
// between `before` and `now` (same source, same stream count); leaves it untouched when no time
// passed.
void fill_rates(Snapshot& now, const Snapshot& before);

}  // namespace hdstream
