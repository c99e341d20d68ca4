// Child processes for integration tests: spawn the real hdstream binary, wait with a deadline,
// signal it, read what it wrote.
//   test::Process recv({HDSTREAM_BINARY, "recv", ...});  auto code = recv.wait(30s);
#pragma once

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

extern char** environ;

#include "tests/support/eventually.hpp"
#include "tests/support/free_port.hpp"

namespace hdstream::test {

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// How many times `needle` occurs in `text` (a log's lines of one kind, say).
inline long occurrences(const std::string& text, const std::string& needle) {
  long count = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    ++count;
  }
  return count;
}

namespace detail {
// This test program's scratch directories.
inline std::vector<std::filesystem::path>& scratch_dirs() {
  static std::vector<std::filesystem::path> dirs;
  return dirs;
}
// At exit: gone when every test passed; a failed test's stay, with its logs, for whoever reads
// the failure. (Kept always, 60 CI runs left 8,484 of them, 50 GB, and a full disk failed one.)
inline void remove_scratch_dirs_if_passed() {
  if (!::testing::UnitTest::GetInstance()->Passed()) return;
  for (const auto& dir : scratch_dirs()) {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
}
}  // namespace detail

// A fresh directory per test for stats files and logs, removed at exit if every test passed.
inline std::filesystem::path scratch_dir(const std::string& name) {
  auto& dirs = detail::scratch_dirs();  // made before the exit handler: gone after it runs
  [[maybe_unused]] static const bool cleaned_at_exit =
      std::atexit(&detail::remove_scratch_dirs_if_passed) == 0;
  auto dir = std::filesystem::temp_directory_path() /
             ("hdstream-test-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  dirs.push_back(dir);
  return dir;
}

class Process {
 public:
  // Starts `args` with stdout and stderr redirected to files in `dir` named after `name`.
  // `environment` entries ("NAME=value") are added to this process's environment.
  Process(std::vector<std::string> args, const std::filesystem::path& dir, const std::string& name,
          const std::vector<std::string>& environment = {})
      : stdout_path_(dir / (name + ".out")), stderr_path_(dir / (name + ".err")) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, stdout_path_.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderr_path_.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::vector<char*> argv;
    for (auto& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    std::vector<std::string> env_storage(environment);
    for (char** entry = environ; *entry; ++entry) env_storage.emplace_back(*entry);
    std::vector<char*> envp;
    for (auto& entry : env_storage) envp.push_back(entry.data());
    envp.push_back(nullptr);
    if (posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), envp.data()) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
  }
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;
  ~Process() {
    if (pid_ > 0 && !exit_code_) {
      ::kill(pid_, SIGKILL);
      int status = 0;
      ::waitpid(pid_, &status, 0);
    }
  }

  bool started() const { return pid_ > 0; }
  int pid() const { return pid_; }
  void signal(int number) { ::kill(pid_, number); }

  // Exit code (128 + signal if killed), or nullopt if still running at the deadline.
  std::optional<int> wait(std::chrono::milliseconds timeout) {
    if (exit_code_) return exit_code_;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    do {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        return exit_code_;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    } while (std::chrono::steady_clock::now() < deadline);
    return std::nullopt;
  }

  std::string out() const { return read_file(stdout_path_); }
  std::string err() const { return read_file(stderr_path_); }

 private:
  pid_t pid_ = -1;
  std::optional<int> exit_code_;
  std::filesystem::path stdout_path_;
  std::filesystem::path stderr_path_;
};

}  // namespace hdstream::test
