// The command-line contract: bad input gets one clear line and exit code 2.
#include <gtest/gtest.h>

#include "common/provenance.hpp"
#include "tests/support/process.hpp"
#include "tests/support/stats_lines.hpp"

namespace hdstream {
namespace {

using namespace std::chrono_literals;

struct Outcome {
  int code = -1;
  std::string out;
  std::string err;
};

Outcome run(std::vector<std::string> args) {
  static int counter = 0;
  auto dir = test::scratch_dir("cli");
  args.insert(args.begin(), HDSTREAM_BINARY);
  test::Process process(args, dir, "run" + std::to_string(counter++));
  auto code = process.wait(30s);
  return Outcome{code.value_or(-1), process.out(), process.err()};
}

std::size_t lines(const std::string& text) {
  return std::count(text.begin(), text.end(), '\n');
}

struct BadInput {
  std::vector<std::string> args;
  std::string names;  // what the one error line must mention
};

class BadArguments : public ::testing::TestWithParam<BadInput> {};

TEST_P(BadArguments, GetOneClearLineAndExitCode2) {
  const auto& input = GetParam();
  const Outcome outcome = run(input.args);
  EXPECT_EQ(outcome.code, 2);
  EXPECT_EQ(lines(outcome.err), 1u) << outcome.err;
  EXPECT_EQ(outcome.err.rfind("hdstream: error: ", 0), 0u) << outcome.err;
  EXPECT_NE(outcome.err.find(input.names), std::string::npos) << outcome.err;
  EXPECT_EQ(outcome.out, "");
}

INSTANTIATE_TEST_SUITE_P(
    Cli, BadArguments,
    ::testing::Values(
        BadInput{{"send", "--dest", "127.0.0.1:9000", "--rate", "fast"}, "invalid rate 'fast'"},
        BadInput{{"send", "--dest", "127.0.0.1:9000", "--duration", "10 parsecs"}, "--duration"},
        BadInput{{"send", "--dest", "127.0.0.1:9000", "--streams", "0"}, "--streams"},
        BadInput{{"send", "--streams", "5"}, "--dest"},
        BadInput{{"send", "--dest", "127.0.0.1"}, "an address needs a port (HOST:PORT)"},
        BadInput{{"send", "--dest", "nowhere"}, "unknown destination 'nowhere'"},
        BadInput{{"send", "--dest", "127.0.0.1:9000", "--cc", "vegas"}, "--cc"},
        BadInput{{"send", "--dest", "127.0.0.1:9000", "--phase", "sideways"}, "--phase"},
        BadInput{{"send", "--dest", "127.0.0.1:9000", "--transport", "mtcp", "--conns", "0"},
                 "--conns"},
        BadInput{{"send", "--dest", "127.0.0.1:9000", "--transport", "quic"}, "--transport"},
        BadInput{{"send", "--dest", "127.0.0.1:9000", "--transport", "srt", "--key-file",
                  "/nonexistent/srt.key"},
                 "--key-file: cannot read '/nonexistent/srt.key'"},
        BadInput{{"recv", "--listen", ":9000", "--transport", "srt", "--key-file",
                  "/nonexistent/srt.key"},
                 "--key-file: cannot read '/nonexistent/srt.key'"},
        BadInput{{"send", "--dest", "127.0.0.1:9000", "--mux", "ts"}, "--mux"},
        BadInput{{"send", "--dest", "127.0.0.1:9000", "--transport", "srt", "--srt-fec", "10"},
                 "--srt-fec: '10' has 1 part(s); give COLS,ROWS[,LAYOUT]"},
        BadInput{{"send", "--dest", "127.0.0.1:9000", "--transport", "srt", "--srt-fec",
                  "fec,cols:10,rows:0"},
                 "--srt-fec: rows '0' is out of range"},
        BadInput{{"recv", "--listen", ":9000", "--transport", "srt", "--srt-fec", "fec,depth:3"},
                 "--srt-fec: unknown key 'depth'"},
        BadInput{{"check", "--dest", "127.0.0.1:9000", "--transport", "srt", "--srt-fec", ""},
                 "--srt-fec: empty"},
        BadInput{{"send", "--dest", "127.0.0.1:9000", "--srt-fec", "10,5"},
                 "--srt-fec: only applies to --transport srt"},
        BadInput{{"recv", "--listen", ":9000", "--srt-fec", "10,5"},
                 "--srt-fec: only applies to --transport srt"},
        BadInput{{"send", "--dest", "127.0.0.1:9000", "--stats", "xml"}, "--stats"},
        BadInput{{"send", "--dest", "127.0.0.1:9000", "--stats-file", "/nonexistent/dir/s.jsonl"},
                 "--stats-file"},
        BadInput{{"send", "--dest", "127.0.0.1:9000", "--chunk-size", "100"}, "--chunk-size"},
        BadInput{{"send", "--dest", "127.0.0.1:9000", "--rate", "20G"}, "--rate"},
        BadInput{{"recv", "--listen", "localhost"}, "missing ':PORT'"},
        BadInput{{"recv", "--listen", ":9000", "--output", "projector"}, "--output"},
        BadInput{{"recv", "--listen", ":9000", "--max-memory", "lots"}, "--max-memory"},
        BadInput{{"recv", "--listen", ":9000", "--max-memory", "64K"}, "at least 1M"},
        BadInput{{"recv", "--listen", ":9000", "--skew", "soon"}, "--skew"},
        BadInput{{"recv", "--listen", ":9000", "--skew", "11s"}, "--skew: at most 10000 ms"},
        BadInput{{"send", "--dest", "127.0.0.1:9000", "--latency", "11s"},
                 "a receiver accepts at most 10 s"},
        BadInput{{"demo", "--interval", "1ms"}, "--interval"},
        BadInput{{"check", "--dest", "127.0.0.1:9000", "--acceptance", "--steps", "25,,50"},
                 "invalid percentage ''"},
        BadInput{{"check", "--dest", "127.0.0.1:9000", "--acceptance", "--steps", "0,100"},
                 "expected a number above 0 and at most 1000"},
        BadInput{{"check", "--dest", "127.0.0.1:9000", "--acceptance", "--soak", "forever"},
                 "--soak"},
        BadInput{{"check", "--dest", "127.0.0.1:9000", "--acceptance", "--soak", "500ms"},
                 "--soak: the soak needs at least 1s"},
        BadInput{{"check", "--dest", "127.0.0.1:9000", "--acceptance", "--min-rate", "x%"},
                 "--min-rate: invalid percentage 'x': expected a number first"},
        BadInput{{"check", "--dest", "127.0.0.1:9000", "--acceptance", "--min-rate", "101%"},
                 "--min-rate: at most 100% of the rate offered"},
        BadInput{{"check", "--dest", "127.0.0.1:9000", "--acceptance", "--max-loss-ratio", "2"},
                 "--max-loss-ratio"},
        BadInput{{"check", "--dest", "127.0.0.1:9000", "--acceptance", "--report", "link.pdf"},
                 "--report: an acceptance report is PATH.html, PATH.md or PATH.json"},
        BadInput{{"teleport"}, "unknown command 'teleport'"},
        BadInput{{"--no-such-option", "--dest", "127.0.0.1:9000"}, "--no-such-option"}),
    [](const ::testing::TestParamInfo<BadInput>& param) {
      return "case" + std::to_string(param.index);
    });

TEST(Cli, HelpExitsZeroAndListsTheCommands) {
  const Outcome outcome = run({"--help"});
  EXPECT_EQ(outcome.code, 0);
  for (const char* command : {"send", "recv", "demo"}) {
    EXPECT_NE(outcome.out.find(command), std::string::npos) << command;
  }
}

TEST(Cli, VersionPrintsTheVersionAndExitsZero) {
  const Outcome outcome = run({"--version"});
  EXPECT_EQ(outcome.code, 0) << outcome.err;
  EXPECT_EQ(outcome.out, "hdstream " + hdstream_version() + "\n");
  EXPECT_EQ(outcome.err, "");
}

TEST(Cli, SendIsTheDefaultCommandAndAnUnreachableDestinationExits1) {
  const int port = test::free_port();  // nothing listens there
  const Outcome outcome = run({"--streams", "2", "--dest", "127.0.0.1:" + std::to_string(port),
                               "--connect-timeout", "300ms", "--stats", "json"});
  EXPECT_EQ(outcome.code, 1);
  EXPECT_NE(outcome.err.find("cannot connect to 127.0.0.1:" + std::to_string(port)),
            std::string::npos)
      << outcome.err;
  auto summary = test::find_line(outcome.out, "summary");
  ASSERT_TRUE(summary) << outcome.out;
  EXPECT_EQ((*summary)["streams"], 2);
  EXPECT_EQ((*summary)["verdict"], "fail");
}

TEST(Cli, ListenAddressInUseExits1NamingTheAddress) {
  auto dir = test::scratch_dir("cli-busy");
  const std::string listen = "127.0.0.1:" + std::to_string(test::free_port());
  test::Process first({HDSTREAM_BINARY, "recv", "--listen", listen}, dir, "first");
  ASSERT_TRUE(
      test::eventually([&] { return first.err().find("listening on") != std::string::npos; }));
  const Outcome second = run({"recv", "--listen", listen});
  EXPECT_EQ(second.code, 1);
  EXPECT_NE(second.err.find("cannot listen on " + listen), std::string::npos) << second.err;
}

}  // namespace
}  // namespace hdstream
