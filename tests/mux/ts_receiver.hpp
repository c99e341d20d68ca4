// `hdstream recv --transport srt --mux ts` as a test peer: one stream, JSON stats in
// dir/r.jsonl, started and listening when the constructor returns.
//   TsReceiver recv(dir, port);  ...  ASSERT_EQ(recv.process.wait(20s), 0);
#pragma once

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "tests/support/eventually.hpp"
#include "tests/support/process.hpp"

namespace hdstream::test {

struct TsReceiver {
  TsReceiver(const std::filesystem::path& dir, const std::string& port)
      : stats(dir / "r.jsonl"),
        process(
            {HDSTREAM_BINARY, "recv", "--listen", "127.0.0.1:" + port, "--transport", "srt",
             "--mux", "ts", "--duration", "60s", "--stats", "json", "--stats-file", stats.string()},
            dir, "recv") {
    listening = eventually([&] { return process.err().find("listening") != std::string::npos; });
  }

  std::filesystem::path stats;
  Process process;
  bool listening = false;
};

}  // namespace hdstream::test
