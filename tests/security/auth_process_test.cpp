// --key-file with real processes, over tcp and mtcp: the right key carries the feed; a stranger
// (wrong or no key) is refused with a clear line on both ends while the receiver's feed keeps
// flowing; bad key files are one line and exit 2.
#include <gtest/gtest.h>

#include "tests/security/process_helpers.hpp"

namespace hdstream {
namespace {

using namespace std::chrono_literals;

class AuthOverTransport : public ::testing::TestWithParam<std::string> {
 protected:
  // A receiver of one stream on the test's transport that requires `key`, with JSON stats.
  std::vector<std::string> keyed_receiver(const std::string& address,
                                          const std::filesystem::path& key) const {
    return {HDSTREAM_BINARY, "recv",     "--listen",   address,      "--streams", "1",
            "--transport",   GetParam(), "--key-file", key.string(), "--stats",   "json",
            "--interval",    "200ms"};
  }
};

TEST_P(AuthOverTransport, RightKeyFlowsStrangersAreRefusedAndTheFeedContinues) {
  const std::string transport = GetParam();
  auto dir = test::scratch_dir("auth-process-" + transport);
  const auto key = test::write_key_file(dir, "studio.key", 'a');
  const auto wrong = test::write_key_file(dir, "wrong.key", 'b');
  const std::string address = "127.0.0.1:" + std::to_string(test::free_port());
  test::Process recv(keyed_receiver(address, key), dir, "recv");
  test::Process send(
      {HDSTREAM_BINARY, "send", "--dest", address, "--rate", "20M", "--transport", transport,
       "--key-file", key.string(), "--stats", "json", "--interval", "200ms"},
      dir, "send");
  ASSERT_TRUE(test::frames_grow([&] { return recv.out(); }, 0, 10)) << recv.err() << send.err();

  test::Process stranger(
      {HDSTREAM_BINARY, "send", "--dest", address, "--rate", "20M", "--transport", transport,
       "--key-file", wrong.string(), "--connect-timeout", "1s"},
      dir, "stranger");
  EXPECT_EQ(stranger.wait(20s), 1) << stranger.err();
  EXPECT_TRUE(test::contains(stranger.err(), "receiver refused the feed: unauthorized"))
      << stranger.err();
  test::Process keyless({HDSTREAM_BINARY, "send", "--dest", address, "--rate", "20M", "--transport",
                         transport, "--connect-timeout", "1s"},
                        dir, "keyless");
  EXPECT_EQ(keyless.wait(20s), 1) << keyless.err();
  EXPECT_TRUE(test::contains(keyless.err(), "receiver requires authentication")) << keyless.err();
  EXPECT_TRUE(test::contains(recv.err(), "unauthorized: authentication failed")) << recv.err();
  EXPECT_TRUE(test::contains(recv.err(), "unauthorized: the sender left without answering"))
      << recv.err();

  // The authenticated feed never noticed.
  ASSERT_TRUE(test::frames_grow([&] { return recv.out(); }, 0, 10)) << recv.err();
  send.signal(SIGTERM);
  EXPECT_EQ(send.wait(20s), 130) << send.err();
  EXPECT_EQ(recv.wait(20s), 0) << recv.err();  // its one stream ended cleanly
  auto sent = test::find_line(send.out(), "summary");
  auto received = test::find_line(recv.out(), "summary");
  ASSERT_TRUE(sent && received);
  EXPECT_EQ((*received)["frames"], (*sent)["frames"]);
  EXPECT_EQ((*received)["drops"], 0);
}

// A protected feed (two legs): each leg authenticates like any session. With the key both legs
// carry the feed; a stranger's protected feed without it is refused on both legs, and the
// authenticated feed keeps both of its legs.
TEST_P(AuthOverTransport, BothLegsOfAProtectedFeedAuthenticate) {
  const std::string transport = GetParam();
  auto dir = test::scratch_dir("auth-legs-" + transport);
  const auto key = test::write_key_file(dir, "studio.key", 'a');
  const std::string address = "127.0.0.1:" + std::to_string(test::free_port());
  test::Process recv(keyed_receiver(address, key), dir, "recv");
  test::Process send(
      {HDSTREAM_BINARY, "send", "--dest", address, "--dest-b", address, "--rate", "20M",
       "--transport", transport, "--key-file", key.string(), "--duration", "60s"},
      dir, "send");
  // Both legs deliver: the last leg lines of each show frames.
  const auto leg_frames = [&](const std::string& leg) {
    long frames = 0;
    for (const auto& line : test::json_lines(recv.out())) {
      if (line.value("type", "") == "leg" && line.value("leg", "") == leg)
        frames = line.value("frames", 0L);
    }
    return frames;
  };
  ASSERT_TRUE(test::eventually([&] { return leg_frames("a") >= 10 && leg_frames("b") >= 10; }, 20s))
      << recv.err() << send.err();

  test::Process stranger({HDSTREAM_BINARY, "send", "--dest", address, "--dest-b", address, "--rate",
                          "20M", "--transport", transport, "--connect-timeout", "1s"},
                         dir, "stranger");
  EXPECT_EQ(stranger.wait(20s), 1) << stranger.err();
  EXPECT_TRUE(test::contains(stranger.err(), "receiver requires authentication")) << stranger.err();

  // Both legs of the authenticated feed never noticed.
  const long a = leg_frames("a"), b = leg_frames("b");
  EXPECT_TRUE(
      test::eventually([&] { return leg_frames("a") >= a + 10 && leg_frames("b") >= b + 10; }, 20s))
      << recv.err();
  send.signal(SIGTERM);
  EXPECT_EQ(send.wait(20s), 130) << send.err();
  EXPECT_EQ(recv.wait(20s), 0) << recv.err();
}

INSTANTIATE_TEST_SUITE_P(Transports, AuthOverTransport, ::testing::Values("tcp", "mtcp"),
                         [](const auto& param_info) { return param_info.param; });

TEST(AuthProcess, BadKeyFilesAreOneLineAndExit2) {
  auto dir = test::scratch_dir("auth-keyfiles");
  const auto open_key = test::write_key_file(dir, "open.key", 'a', 0644);
  auto short_key = dir / "short.key";
  std::ofstream(short_key) << "abcdef\n";
  ::chmod(short_key.c_str(), 0600);
  for (const auto& [file, needle] : {std::pair{open_key, std::string("chmod 600")},
                                     std::pair{short_key, std::string("expected 64 hex digits")},
                                     std::pair{dir / "missing.key", std::string("No such file")}}) {
    for (const char* command : {"send", "recv"}) {
      std::vector<std::string> args{HDSTREAM_BINARY, command, "--key-file", file.string()};
      if (std::string(command) == "send") {
        args.insert(args.end(), {"--dest", "127.0.0.1:9"});
      } else {
        args.insert(args.end(), {"--listen", "127.0.0.1:0"});
      }
      test::Process run(args, dir, "run");
      EXPECT_EQ(run.wait(10s), 2) << run.err();
      const std::string err = run.err();
      EXPECT_TRUE(test::contains(err, needle)) << err;
      EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    }
  }
}

}  // namespace
}  // namespace hdstream
