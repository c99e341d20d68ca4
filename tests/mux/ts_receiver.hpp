// `hdstream recv --transport srt --mux ts` as a test peer: one stream, JSON stats in
// dir/r.jsonl, started and listening when the constructor returns; `more` arguments after.
//   TsReceiver recv(dir, port, {"--output", "file:rec.mkv"});  ...  recv.process.wait(20s);
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/eventually.hpp"
#include "tests/support/process.hpp"

namespace hdstream::test {

struct TsReceiver {
  TsReceiver(const std::filesystem::path& dir, const std::string& port,
             const std::vector<std::string>& more = {})
      : stats(dir / "r.jsonl"), process(arguments(port, more), dir, "recv") {
    listening = eventually([&] { return process.err().find("listening") != std::string::npos; });
  }

  std::vector<std::string> arguments(const std::string& port,
                                     const std::vector<std::string>& more) const {
    std::vector<std::string> args = {
        HDSTREAM_BINARY, "recv",  "--listen",     "127.0.0.1:" + port, "--transport",
        "srt",           "--mux", "ts",           "--duration",        "60s",
        "--stats",       "json",  "--stats-file", stats.string()};
    args.insert(args.end(), more.begin(), more.end());
    return args;
  }

  std::filesystem::path stats;
  Process process;
  bool listening = false;
};

}  // namespace hdstream::test
