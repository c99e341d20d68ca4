#include "gui/feed_pairing.hpp"

#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>

namespace hdstream {
namespace {

bool is_wildcard(const std::string& host) {
  return host.empty() || host == "0.0.0.0" || host == "::" || host == "*";
}

std::string join_host_port(const HostPort& address) {
  const bool v6 = address.host.find(':') != std::string::npos;
  return v6 ? fmt::format("[{}]:{}", address.host, address.port)
            : fmt::format("{}:{}", address.host, address.port);
}

// The receiving end a side names: a sender's destination; a receiver's listen address, its
// wildcard host replaced by the host the monitor reached it at.
HostPort receiving_end(const PanelInput& input) {
  HostPort address = split_host_port(input.source.endpoint);
  if (input.source.snapshot.role == Role::recv && is_wildcard(address.host) &&
      !input.polled_from.empty()) {
    address.host = split_host_port(input.polled_from).host;
  }
  return address;
}

std::string polled_host(const PanelInput& input) {
  return input.polled_from.empty() ? std::string() : split_host_port(input.polled_from).host;
}

// Reported names that hosts polled at different addresses share: they name no one host.
std::set<std::string> shared_names(std::span<const PanelInput> inputs) {
  std::map<std::string, std::set<std::string>> polled_hosts_of;
  for (const auto& input : inputs) polled_hosts_of[input.source.host].insert(polled_host(input));
  std::set<std::string> shared;
  for (const auto& [name, hosts] : polled_hosts_of) {
    if (hosts.size() > 1) shared.insert(name);
  }
  return shared;
}

std::string host_name(const PanelInput& input, const HostPort& receiving,
                      const std::set<std::string>& shared) {
  const std::string& name = input.source.host;
  if (!name.empty() && !shared.contains(name)) return name;
  // A receiver is where its feed arrives; a sender is where the monitor reached it.
  if (input.source.snapshot.role == Role::recv && !is_wildcard(receiving.host)) {
    return receiving.host;
  }
  const std::string polled = polled_host(input);
  return polled.empty() ? (name.empty() ? std::string("?") : name) : polled;
}

}  // namespace

HostPort split_host_port(const std::string& endpoint) {
  if (!endpoint.empty() && endpoint.front() == '[') {
    const auto close = endpoint.find(']');
    if (close != std::string::npos) {
      const auto colon = endpoint.find(':', close);
      return {endpoint.substr(1, close - 1),
              colon == std::string::npos ? std::string() : endpoint.substr(colon + 1)};
    }
  }
  const auto colon = endpoint.rfind(':');
  if (colon == std::string::npos) return {endpoint, std::string()};
  return {endpoint.substr(0, colon), endpoint.substr(colon + 1)};
}

std::vector<FeedSides> pair_feeds(std::span<const PanelInput> inputs) {
  const std::set<std::string> shared = shared_names(inputs);
  std::vector<FeedSides> feeds;
  std::map<std::string, std::size_t> by_key;  // receiver sides' keys -> index in feeds
  struct Pending {
    FeedSide side;
    HostPort receiving;
  };
  std::vector<Pending> unmatched;

  for (const Role role : {Role::recv, Role::send}) {
    for (const auto& input : inputs) {
      if (input.source.snapshot.role != role) continue;
      const HostPort receiving = receiving_end(input);
      const std::string receiver = join_host_port(receiving);
      for (const auto& stream : input.source.snapshot.streams) {
        FeedSide side{&stream, &input, fmt::format("{}@{}", stream.stream, receiver),
                      host_name(input, receiving, shared)};
        if (role == Role::recv) {
          // The same receiver listed twice (two spellings of one host): shown once.
          if (by_key.contains(side.key)) continue;
          by_key.emplace(side.key, feeds.size());
          feeds.push_back(FeedSides{stream.stream, receiver, {}, std::move(side)});
          continue;
        }
        auto found = by_key.find(side.key);
        if (found != by_key.end() && !feeds[found->second].send.stream) {
          feeds[found->second].send = std::move(side);
        } else {
          unmatched.push_back(Pending{std::move(side), receiving});
        }
      }
    }
  }

  // Senders that name their receiver differently (a host name against an address): paired
  // only where nothing else could be meant.
  std::map<std::pair<std::uint16_t, std::string>, std::size_t> unmatched_senders;
  for (const auto& pending : unmatched) {
    ++unmatched_senders[{pending.side.stream->stream, pending.receiving.port}];
  }
  for (auto& pending : unmatched) {
    const std::uint16_t stream = pending.side.stream->stream;
    const std::string& port = pending.receiving.port;
    const std::size_t senders = unmatched_senders[{stream, port}];
    std::size_t receivers = 0;
    FeedSides* unpaired = nullptr;
    for (auto& feed : feeds) {
      if (!feed.recv.stream || feed.stream != stream) continue;
      if (split_host_port(feed.receiver).port != port) continue;
      ++receivers;
      unpaired = feed.send.stream ? nullptr : &feed;
    }
    if (senders == 1 && receivers == 1 && unpaired) {
      // A receiver listening on every address is best named by where its sender sends.
      if (is_wildcard(split_host_port(unpaired->receiver).host)) {
        unpaired->receiver = join_host_port(pending.receiving);
      }
      unpaired->send = std::move(pending.side);
      continue;
    }
    // A second sender claiming a feed already shown is not a feed of its own.
    if (by_key.contains(pending.side.key)) continue;
    by_key.emplace(pending.side.key, feeds.size());
    feeds.push_back(
        FeedSides{stream, join_host_port(pending.receiving), std::move(pending.side), {}});
  }
  return feeds;
}

}  // namespace hdstream
