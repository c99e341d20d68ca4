// Network namespaces for emulated sites: create, delete (killing what runs inside), sweep the
// leftovers of crashed runs, and run code inside one.
//   create_netns("hds4242-a");
//   in_netns("hds4242-a", [&] { fd = ::socket(AF_INET, SOCK_DGRAM, 0); });  // a socket there
//   delete_netns("hds4242-a");  sweep_stale_netns();
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace hdstream::linkemu {

// Names of namespaces this tool creates by default start with kDefaultPrefixStem followed by
// the creating process id and '-', so a later run can tell whose they are.
inline constexpr const char* kDefaultPrefixStem = "hds";
std::string default_prefix();  // "hds<pid>-"

std::vector<std::string> list_netns();
// Creates an empty namespace with loopback up. Throws std::runtime_error.
void create_netns(const std::string& name);
// Kills every process inside, then deletes it. Returns false if it could not be deleted.
bool delete_netns(const std::string& name);
// Deletes every namespace whose name starts with `prefix`; returns how many.
int delete_netns_with_prefix(const std::string& prefix);
// Deletes "hds<pid>-*" namespaces whose creating process is gone; returns how many.
int sweep_stale_netns();

// Runs `work` on a thread that has entered the namespace, and waits for it. Sockets and
// TUN devices created by `work` belong to that namespace for good. Throws std::runtime_error if
// the namespace cannot be entered; exceptions from `work` propagate.
void in_netns(const std::string& name, const std::function<void()>& work);

// Writes a /proc/sys value inside the namespace ("net/ipv4/tcp_rmem", "4096 131072 67108864").
void write_sysctl(const std::string& netns, const std::string& key, const std::string& value);

}  // namespace hdstream::linkemu
