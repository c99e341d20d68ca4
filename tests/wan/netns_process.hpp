// A child process running inside a network namespace, its stdout and stderr in files; killed
// with its parent (PR_SET_PDEATHSIG) and by the destructor, so a crashed test leaves no feeds.
//   NetnsProcess recv("hds42-b", {hdstream, "recv", ...}, "recv.out", "recv.err");
//   if (!recv.wait_for(20s)) recv.kill();   int code = recv.exit_code();
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace hdstream::wan {

class NetnsProcess {
 public:
  // Throws std::runtime_error if the process cannot be started.
  NetnsProcess(const std::string& netns, const std::vector<std::string>& argv,
               const std::string& stdout_path, const std::string& stderr_path);
  ~NetnsProcess();
  NetnsProcess(const NetnsProcess&) = delete;
  NetnsProcess& operator=(const NetnsProcess&) = delete;

  // True once the process has exited (within `timeout`).
  bool wait_for(std::chrono::nanoseconds timeout);
  void kill();
  bool running() const { return pid_ > 0; }
  // Exit status (128 + signal if killed); -1 while running.
  int exit_code() const { return exit_code_; }

 private:
  pid_t pid_ = -1;
  int exit_code_ = -1;
};

}  // namespace hdstream::wan
