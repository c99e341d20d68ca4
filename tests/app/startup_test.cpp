// Start-up: the hdstream binary links none of libav*, GStreamer or Qt (about 150 shared objects
// with their dependencies); a command loads them, through the media module, only when a feed
// needs them. docs/PERFORMANCE.md measures what that saves.
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/support/eventually.hpp"
#include "tests/support/process.hpp"
#include "tests/support/stats_lines.hpp"

namespace hdstream {
namespace {

using namespace std::chrono_literals;

// Name prefixes of FFmpeg's, GStreamer's (and GLib's) and Qt's shared objects.
const std::vector<std::string> kMediaLibraries = {"/libav", "/libsw",   "/libgst",
                                                  "/libQt6", "/libglib", "/libgobject"};

TEST(StartUp, TheBinaryNeedsNoMediaLibrary) {
  // What the dynamic loader maps before main(): ldd's own method.
  auto dir = test::scratch_dir("startup-ldd");
  test::Process trace({HDSTREAM_BINARY}, dir, "trace", {"LD_TRACE_LOADED_OBJECTS=1"});
  ASSERT_EQ(trace.wait(30s), 0) << trace.err();
  const std::string loaded = trace.out();
  EXPECT_NE(loaded.find("libsrt-gnutls"), std::string::npos) << loaded;  // the list is real
  for (const auto& name : kMediaLibraries) {
    EXPECT_EQ(loaded.find(name), std::string::npos) << name << " loaded at start:\n" << loaded;
  }
}

struct FeedRun {
  bool receiver_loaded_module = false;
  bool sender_loaded_module = false;
  std::string receiver_out;
};

// One feed from a sender to a receiver (recv's default output, null: decode and discard, and a
// decode queue that rides out the module's loading), with the dynamic loader reporting every
// object it loads (LD_DEBUG=files) into files of `dir`.
FeedRun one_feed(const std::string& name, const std::vector<std::string>& format,
                 const std::vector<std::string>& receiver_options = {},
                 const std::vector<std::string>& receiver_environment = {}) {
  auto dir = test::scratch_dir("startup-" + name);
  const std::vector<std::string> debug = {"LD_DEBUG=files",
                                          "LD_DEBUG_OUTPUT=" + (dir / "ld").string()};
  const std::string port = std::to_string(test::free_port());
  std::vector<std::string> recv = {HDSTREAM_BINARY, "recv",     "--listen",     "127.0.0.1:" + port,
                                   "--streams",     "1",        "--stats",      "json",
                                   "--decode-queue", "64"};
  recv.insert(recv.end(), receiver_options.begin(), receiver_options.end());
  std::vector<std::string> environment = debug;
  environment.insert(environment.end(), receiver_environment.begin(),
                     receiver_environment.end());
  test::Process receiver(recv, dir, "recv", environment);
  EXPECT_TRUE(test::eventually([&] {
    return receiver.err().find("listening on") != std::string::npos;
  })) << receiver.err();
  std::vector<std::string> send = {HDSTREAM_BINARY, "send", "--dest",  "127.0.0.1:" + port,
                                   "--duration",    "1s",   "--stats", "json"};
  send.insert(send.end(), format.begin(), format.end());
  test::Process sender(send, dir, "send", debug);
  EXPECT_EQ(sender.wait(60s), 0) << sender.err();
  EXPECT_EQ(receiver.wait(60s), 0) << receiver.err();

  // The loader names each object it loads "file=NAME [0];  dynamically loaded by ..." in
  // ld.PID; the whole file of one process says whether the module came in.
  const auto module_loaded = [&](const test::Process& process) {
    const std::string log = test::read_file(dir / ("ld." + std::to_string(process.pid())));
    EXPECT_NE(log.find("file=libsrt-gnutls"), std::string::npos) << "no loader log";
    return log.find("libhdstream-media.so") != std::string::npos;
  };
  return {module_loaded(receiver), module_loaded(sender), receiver.out()};
}

// The receiver's summary, which must exist and pass.
nlohmann::json passing_summary(const FeedRun& run) {
  const auto summary = test::last_line(test::json_lines(run.receiver_out), "summary");
  EXPECT_TRUE(summary && (*summary)["verdict"] == "pass") << run.receiver_out;
  return summary.value_or(nlohmann::json::object());
}

// A second of the clip arrived and every frame of it was decoded.
void expect_every_frame_decoded(const FeedRun& run) {
  const int frames = passing_summary(run).value("frames", 0);
  EXPECT_GE(frames, 29);
  const auto media = test::last_line(test::json_lines(run.receiver_out), "media");
  ASSERT_TRUE(media) << run.receiver_out;
  EXPECT_EQ((*media)["frames_decoded"], frames);
}

TEST(StartUp, SyntheticFeedsNeverLoadTheMediaModule) {
  const FeedRun run = one_feed("synthetic", {"--format", "synthetic", "--rate", "50M"});
  EXPECT_GE(passing_summary(run).value("frames", 0), 29);
  EXPECT_FALSE(run.receiver_loaded_module);
  EXPECT_FALSE(run.sender_loaded_module);
}

const std::string kClip = std::string(HDSTREAM_SAMPLES) + "/dnxhd220-1080-3f.mov";

TEST(StartUp, AVideoFeedLoadsItOnBothSidesAndIsDecoded) {
  ASSERT_TRUE(std::filesystem::exists(kClip)) << kClip;
  const FeedRun run = one_feed("video", {"--format", "dnxhd220", "--source", "file:" + kClip});
  expect_every_frame_decoded(run);
  EXPECT_TRUE(run.receiver_loaded_module);
  EXPECT_TRUE(run.sender_loaded_module);
}

// The panel (a real Qt window, offscreen) with the default output, whose thumbnails the module
// makes only once the video feed's session starts: the panel asks for them all along.
TEST(StartUp, ThePanelRunsBesideAVideoFeedWhoseThumbnailsComeLater) {
  ASSERT_TRUE(std::filesystem::exists(kClip)) << kClip;
  const FeedRun run = one_feed("panel", {"--format", "dnxhd220", "--source", "file:" + kClip},
                               {"--gui"}, {"QT_QPA_PLATFORM=offscreen"});
  expect_every_frame_decoded(run);
  EXPECT_TRUE(run.receiver_loaded_module);
}

}  // namespace
}  // namespace hdstream
