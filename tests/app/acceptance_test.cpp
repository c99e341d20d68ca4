// `hdstream check --acceptance` against a real receiver on loopback, on every transport: a
// clean path passes with every frame accounted for second by second and a report that
// validates against docs/acceptance.schema.json; a criterion at the edge flips the verdict (exit
// 3); Ctrl-C during the soak still writes the report of what ran, marked incomplete.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <optional>

#include "common/provenance.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/process.hpp"
#include "tests/support/stats_lines.hpp"

namespace hdstream {
namespace {

using namespace std::chrono_literals;

constexpr int kStreams = 2;
constexpr double kFps = 30000.0 / 1001;

// A receiver on a free loopback port range (SRT serves stream i on base + i).
struct Receiver {
  Receiver(const std::string& transport, const std::filesystem::path& dir)
      : made(std::filesystem::create_directories(dir)),
        address("127.0.0.1:" + std::to_string(test::free_port())),
        process({HDSTREAM_BINARY, "recv", "--listen", address, "--streams",
                 std::to_string(kStreams), "--transport", transport, "--latency", "1s"},
                dir, "recv") {}
  bool made;  // the directory, before the process writes its output there
  std::string address;
  test::Process process;
};

std::vector<std::string> acceptance_args(const std::string& address, const std::string& transport,
                                         const std::filesystem::path& report,
                                         const std::string& soak) {
  // --rtt 20ms: the RTT path check (a connect's round trip, several ms on a loaded 2-core
  // machine) must not decide a test of the acceptance run.
  return {HDSTREAM_BINARY, "check", "--dest", address, "--streams", std::to_string(kStreams),
          "--transport", transport, "--rate", "40M", "--rtt", "20ms", "--latency", "1s",
          "--acceptance", "--steps", "50,100", "--step-duration", "2s", "--soak", soak, "--report",
          report.string(), "--stats", "json", "--engineer", "A. Tester", "--link-id", "LOOP-1",
          // p99 over 60-120 frames is one or two scheduler stalls on a loaded 2-core machine:
          // these tests are about the run, not the loopback's delay variation.
          "--max-delay-variation", "500ms"};
}

// docs/acceptance.schema.json's verdict on `report`: empty when valid, else why not.
std::string schema_errors(const std::filesystem::path& report) {
  const auto dir = report.parent_path();
  test::Process validate(
      {"/usr/bin/python3", "-c",
       "import json, sys, jsonschema\n"
       "schema = json.load(open(sys.argv[1]))\n"
       "jsonschema.Draft202012Validator(schema).validate(json.load(open(sys.argv[2])))\n",
       HDSTREAM_SCHEMA, report.string()},
      dir, "schema");
  const auto code = validate.wait(60s);
  return code == 0 ? std::string()
                   : "exit " + std::to_string(code.value_or(-1)) + ": " + validate.err();
}

nlohmann::json read_json(const std::filesystem::path& path) {
  return nlohmann::json::parse(test::read_file(path));
}

class Acceptance : public ::testing::TestWithParam<std::string> {};

TEST_P(Acceptance, ACleanPathPassesWithEveryFrameAccountedForSecondBySecond) {
  const std::string transport = GetParam();
  const auto dir = test::scratch_dir("acceptance-" + transport);
  Receiver recv(transport, dir);
  ASSERT_TRUE(test::eventually([&] {
    return recv.process.err().find("listening on") != std::string::npos;
  })) << recv.process.err();
  const auto report = dir / "report.json";
  const auto started = std::chrono::steady_clock::now();
  test::Process check(acceptance_args(recv.address, transport, report, "4s"), dir, "check");
  ASSERT_EQ(check.wait(120s), 0) << check.out() << check.err();
  const double took_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  EXPECT_EQ(schema_errors(report), "");
  const nlohmann::json r = read_json(report);
  EXPECT_EQ(r["verdict"], "pass");
  EXPECT_EQ(r["complete"], true);
  EXPECT_EQ(r["sign_off"]["engineer"], "A. Tester");
  EXPECT_EQ(r["hdstream"], hdstream_version());
  EXPECT_EQ(r["host"], host_name());
  // Each receiver as its HELLO_ACK named itself: this host, this version.
  ASSERT_FALSE(r["receivers"].empty());
  for (const auto& receiver : r["receivers"]) {
    EXPECT_EQ(receiver["name"], receiver_identity()) << receiver;
  }
  ASSERT_EQ(r["phases"].size(), 3u);
  const double seconds[] = {2, 2, 4}, percent[] = {50, 100, 100};
  for (std::size_t i = 0; i < 3; ++i) {
    const auto& p = r["phases"][i];
    SCOPED_TRACE(p["name"].get<std::string>());
    EXPECT_EQ(p["kind"], i == 2 ? "soak" : "step");
    EXPECT_EQ(p["percent"], percent[i]);
    // Every frame the schedule produced arrived, verified, with a transit sample each.
    const long offered = p["frames_offered"];
    EXPECT_EQ(offered, kStreams * static_cast<long>(std::ceil(seconds[i] * kFps)));
    EXPECT_EQ(p["frames_delivered"], offered);
    EXPECT_EQ(p["frames_lost"], 0);
    EXPECT_EQ(p["delay_samples"], offered);
    EXPECT_EQ(p["samples_complete"], true);
    EXPECT_EQ(p["errored_seconds"], 0);
    EXPECT_EQ(p["availability"], 1.0);
    // The rate verified is the rate offered (the frames are sized for it).
    const double offered_mbps = kStreams * 40 * percent[i] / 100;
    EXPECT_EQ(p["offered_mbps"], offered_mbps);
    EXPECT_NEAR(p["rate_mbps"].get<double>(), offered_mbps, 0.01 * offered_mbps);
    // On one host the clocks agree: delay is one way, well below the 1 s budget. Not on srt,
    // whose frames arrive at their send time plus the budget: half its RTT.
    EXPECT_EQ(p["delay_basis"], transport == "srt" ? "half_rtt" : "one_way");
    EXPECT_GT(p["delay_ms"].get<double>(), 0.0);
    EXPECT_LT(p["delay_ms"].get<double>(), 100.0);
    const auto& v = p["delay_variation_ms"];
    EXPECT_LE(v["p50"].get<double>(), v["p95"].get<double>());
    EXPECT_LE(v["p95"].get<double>(), v["p99"].get<double>());
    EXPECT_LE(v["p99"].get<double>(), v["max"].get<double>());
    ASSERT_EQ(p["by_second"].size(), static_cast<std::size_t>(seconds[i]));
    long by_second = 0;
    for (const auto& s : p["by_second"]) by_second += s["frames_offered"].get<long>();
    EXPECT_EQ(by_second, offered);
    for (const auto& c : p["criteria"]) EXPECT_EQ(c["pass"], true) << c;
  }
  // The progress lines while it ran, then the result line.
  std::size_t progress = 0;
  std::optional<double> stated_s;  // the whole run, as its first progress line states it
  for (const auto& line : test::json_lines(check.out())) {
    if (line["type"] != "acceptance_progress") continue;
    ++progress;
    if (!stated_s) stated_s = line["elapsed_s"].get<double>() + line["remaining_s"].get<double>();
  }
  EXPECT_GE(progress, 6u);
  // It takes the time it stated: three phases (1 s warm-up each, 2 + 2 + 4 s), each closed by
  // END and the last report (srt: twice the 1 s latency budget). Measured on this machine under
  // a build: 11.0 s of a stated 11.3 (tcp), 17.4 of 17.4 (srt). Within a second and a half
  // either way: the remaining time is stated to the second, and the pre-flight checks and the
  // process's start and exit are not in it.
  ASSERT_TRUE(stated_s);
  EXPECT_NEAR(took_s, *stated_s, 1.5) << "stated " << *stated_s << " s";
  const auto line = test::find_line(check.out(), "acceptance");
  ASSERT_TRUE(line) << check.out();
  EXPECT_EQ((*line)["verdict"], "pass");
}

INSTANTIATE_TEST_SUITE_P(Transports, Acceptance, ::testing::Values("tcp", "mtcp", "srt"),
                         [](const auto& transport) { return transport.param; });

TEST(AcceptanceVerdict, ACriterionAtTheEdgeFlipsItWithTheFigureThatFailed) {
  const auto dir = test::scratch_dir("acceptance-edge");
  Receiver recv("tcp", dir);
  ASSERT_TRUE(test::eventually(
      [&] { return recv.process.err().find("listening on") != std::string::npos; }));
  const auto report = dir / "report.json";
  auto args = acceptance_args(recv.address, "tcp", report, "2s");
  args.insert(args.end(), {"--max-delay", "1us"});  // no path delivers a frame in 1 us
  test::Process check(args, dir, "check");
  ASSERT_EQ(check.wait(120s), 3) << check.out() << check.err();
  const nlohmann::json r = read_json(report);
  EXPECT_EQ(r["verdict"], "fail");
  EXPECT_EQ(r["complete"], true);
  for (const auto& p : r["phases"]) {
    for (const auto& c : p["criteria"]) {
      EXPECT_EQ(c["pass"], c["name"] != "frame delay") << c;
      if (c["name"] == "frame delay") {
        EXPECT_EQ(c["threshold"], "≤ 0.001 ms");
      }
    }
  }
}

TEST(AcceptanceTwoPaths, EachPathOfAProtectedDestinationIsAcceptedOnItsOwn) {
  const auto dir = test::scratch_dir("acceptance-two-paths");
  Receiver a("tcp", dir / "a"), b("tcp", dir / "b");
  for (Receiver* recv : {&a, &b}) {
    ASSERT_TRUE(test::eventually(
        [&] { return recv->process.err().find("listening on") != std::string::npos; }));
  }
  const auto report = dir / "report.json";
  auto args = acceptance_args(a.address, "tcp", report, "2s");
  *std::find(args.begin(), args.end(), "50,100") = "100";  // one step a path
  args.insert(args.end(), {"--dest-b", b.address});
  test::Process check(args, dir, "check");
  ASSERT_EQ(check.wait(120s), 0) << check.out() << check.err();
  EXPECT_EQ(schema_errors(report), "");
  const nlohmann::json r = read_json(report);
  ASSERT_EQ(r["receivers"].size(), 2u);
  EXPECT_EQ(r["receivers"][0]["endpoint"], a.address);
  EXPECT_EQ(r["receivers"][1]["endpoint"], b.address);
  for (const auto& receiver : r["receivers"]) {
    EXPECT_EQ(receiver["name"], receiver_identity()) << "each path's receiver named itself";
  }
  std::vector<std::string> names;
  for (const auto& p : r["phases"]) {
    names.push_back(p["name"]);
    // Each path measured as a link of its own: every frame of it delivered and sampled.
    EXPECT_GT(p["frames_offered"].get<long>(), 0);
    EXPECT_EQ(p["frames_delivered"], p["frames_offered"]);
    EXPECT_EQ(p["delay_samples"], p["frames_offered"]);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"path A: step 1 of 1", "path A: soak",
                                             "path B: step 1 of 1", "path B: soak"}));
  std::size_t checks_b = 0;
  for (const auto& fact : r["path"])
    checks_b += fact["name"].get<std::string>().starts_with("path B: ");
  EXPECT_GE(checks_b, 3u);
}

TEST(AcceptanceInterrupted, CtrlCInTheSoakStillWritesTheReportOfWhatRanMarkedIncomplete) {
  const auto dir = test::scratch_dir("acceptance-interrupted");
  Receiver recv("tcp", dir);
  ASSERT_TRUE(test::eventually(
      [&] { return recv.process.err().find("listening on") != std::string::npos; }));
  const auto report = dir / "report.json";
  test::Process check(acceptance_args(recv.address, "tcp", report, "10m"), dir, "check");
  ASSERT_TRUE(test::eventually(
      [&] {
        for (const auto& line : test::json_lines(check.out())) {
          if (line["type"] == "acceptance_progress" && line["phase"] == "soak" &&
              line["measured_s"].get<double>() >= 3) {
            return true;
          }
        }
        return false;
      },
      60s))
      << check.out() << check.err();
  check.signal(SIGINT);
  ASSERT_EQ(check.wait(60s), 130) << check.out() << check.err();
  EXPECT_EQ(schema_errors(report), "");
  const nlohmann::json r = read_json(report);
  EXPECT_EQ(r["complete"], false);
  EXPECT_EQ(r["verdict"], "fail");
  ASSERT_EQ(r["phases"].size(), 3u);
  const auto& soak = r["phases"][2];
  EXPECT_EQ(soak["kind"], "soak");
  EXPECT_GE(soak["seconds"].get<double>(), 2.0);
  EXPECT_LT(soak["seconds"].get<double>(), 60.0);
  // What ran was measured: its frames, stopped at a frame boundary, all delivered.
  EXPECT_EQ(soak["frames_lost"], 0);
  EXPECT_EQ(soak["frames_delivered"], soak["frames_offered"]);
}

}  // namespace
}  // namespace hdstream
