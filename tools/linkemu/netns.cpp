#include "tools/linkemu/netns.hpp"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "common/log.hpp"
#include "tools/linkemu/command.hpp"

namespace hdstream::linkemu {
namespace {

std::shared_ptr<spdlog::logger> log() {
  return logger("linkemu");
}

bool process_alive(int pid) {
  return kill(pid, 0) == 0 || errno == EPERM;
}

// The pid in "hds<pid>-...", or 0 if the name is not one of ours.
int owner_pid(const std::string& name) {
  const std::string stem = kDefaultPrefixStem;
  if (name.rfind(stem, 0) != 0) return 0;
  const char* first = name.data() + stem.size();
  const char* last = name.data() + name.size();
  int pid = 0;
  auto [end, ec] = std::from_chars(first, last, pid);
  if (ec != std::errc{} || end == last || *end != '-') return 0;
  return pid;
}

}  // namespace

std::string default_prefix() {
  return fmt::format("{}{}-", kDefaultPrefixStem, getpid());
}

std::vector<std::string> list_netns() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/run/netns", ec)) {
    names.push_back(entry.path().filename().string());
  }
  return names;
}

void create_netns(const std::string& name) {
  run_checked({"ip", "netns", "add", name});
  run_checked({"ip", "-n", name, "link", "set", "lo", "up"});
}

bool delete_netns(const std::string& name) {
  // Processes left inside (a receiver whose test crashed) would keep the namespace alive.
  auto pids = run_command({"ip", "netns", "pids", name});
  if (pids.ok()) {
    std::istringstream in(pids.output);
    int pid = 0;
    while (in >> pid) {
      if (pid > 1 && pid != getpid()) kill(pid, SIGKILL);
    }
  }
  auto result = run_command({"ip", "netns", "delete", name});
  if (!result.ok()) {
    log()->warn("cannot delete namespace {}: {}", name, result.output);
    return false;
  }
  return true;
}

int delete_netns_with_prefix(const std::string& prefix) {
  int deleted = 0;
  if (prefix.empty()) return 0;  // never "delete everything"
  for (const auto& name : list_netns()) {
    if (name.rfind(prefix, 0) == 0 && delete_netns(name)) ++deleted;
  }
  return deleted;
}

int sweep_stale_netns() {
  int deleted = 0;
  for (const auto& name : list_netns()) {
    const int pid = owner_pid(name);
    if (pid > 0 && !process_alive(pid)) {
      log()->info("removing stale namespace {} (process {} is gone)", name, pid);
      if (delete_netns(name)) ++deleted;
    }
  }
  return deleted;
}

void in_netns(const std::string& name, const std::function<void()>& work) {
  std::exception_ptr error;
  // setns() changes only the calling thread; a fresh thread leaves the caller's namespace alone.
  std::thread thread([&] {
    try {
      const std::string path = "/run/netns/" + name;
      const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) {
        throw std::runtime_error(fmt::format("cannot open {}: {}", path, std::strerror(errno)));
      }
      const int entered = setns(fd, CLONE_NEWNET);
      const int setns_errno = errno;
      close(fd);
      if (entered != 0) {
        throw std::runtime_error(
            fmt::format("cannot enter namespace {}: {}", name, std::strerror(setns_errno)));
      }
      work();
    } catch (...) {
      error = std::current_exception();
    }
  });
  thread.join();
  if (error) std::rethrow_exception(error);
}

void write_sysctl(const std::string& netns, const std::string& key, const std::string& value) {
  in_netns(netns, [&] {
    const std::string path = "/proc/sys/" + key;
    std::ofstream out(path);
    out << value << '\n';
    out.flush();
    if (!out) {
      throw std::runtime_error(fmt::format("cannot set {} in namespace {}", key, netns));
    }
  });
}

}  // namespace hdstream::linkemu
