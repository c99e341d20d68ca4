#include "tests/wan/netns_process.hpp"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

namespace hdstream::wan {

NetnsProcess::NetnsProcess(const std::string& netns, const std::vector<std::string>& argv,
                           const std::string& stdout_path, const std::string& stderr_path) {
  // Everything the child needs is prepared before fork(): after it, in a threaded parent, the
  // child may only make plain system calls.
  const std::string netns_path = "/run/netns/" + netns;
  std::vector<char*> args;
  for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  const pid_t parent = getpid();

  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error(fmt::format("fork: {}", std::strerror(errno)));
  if (pid_ == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(126);  // the parent died before prctl took effect
    const int ns = open(netns_path.c_str(), O_RDONLY | O_CLOEXEC);
    if (ns < 0 || setns(ns, CLONE_NEWNET) != 0) _exit(125);
    const int out = open(stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    const int err = open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out < 0 || err < 0) _exit(124);
    dup2(out, STDOUT_FILENO);
    dup2(err, STDERR_FILENO);
    // Our own SIGINT/SIGTERM handling must not leak into the child.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
}

NetnsProcess::~NetnsProcess() {
  kill();
}

bool NetnsProcess::wait_for(std::chrono::nanoseconds timeout) {
  if (pid_ <= 0) return true;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    int status = 0;
    const pid_t done = waitpid(pid_, &status, WNOHANG);
    if (done == pid_) {
      exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      pid_ = -1;
      return true;
    }
    if (std::chrono::steady_clock::now() >= deadline) return false;
    // waitpid has no timeout; a 10 ms poll is cheap against runs of seconds.
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

void NetnsProcess::kill() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  int status = 0;
  waitpid(pid_, &status, 0);
  exit_code_ = 128 + SIGKILL;
  pid_ = -1;
}

}  // namespace hdstream::wan
