// app/send_plan: the command line, the environment and the presets resolve into one plan, and
// what depends on the transport (the key file, --conns, --mux) is decided after a preset may have
// named the transport. No processes: the plan itself (process tests: tests/app/presets_cli_test).
#include "app/send_plan.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "app/usage_error.hpp"
#include "presets/preset_store.hpp"
#include "tests/support/process.hpp"

namespace hdstream {
namespace {

constexpr const char* kHexKey = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
constexpr const char* kPassphrase = "correct horse battery staple";

// The shipped presets, then a show's own file over them (cfg.toml, lines as written).
PresetStore show_presets() {
  PresetStore store;
  store.load_file(installed_presets());
  store.load_text(R"([destinations.showsrt]
hosts = ["127.0.0.1"]
port = 9300
transport = "srt"

[destinations.showmtcp]
hosts = ["127.0.0.1"]
transport = "mtcp"

[destinations.showtcp]
hosts = ["127.0.0.1"]
transport = "tcp"

[destinations.keyed]
hosts = ["127.0.0.1"]
transport = "srt"
key_file = "/nonexistent/show.pass"
)",
                  "cfg.toml");
  return store;
}

class SendPlanTest : public ::testing::Test {
 protected:
  // A file holding `text`, readable by its owner only (as a key file must be).
  std::string file(const std::string& name, const std::string& text) {
    const auto path = dir_ / name;
    std::ofstream(path) << text << '\n';
    std::filesystem::permissions(
        path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
    return path.string();
  }

  // `send --dest DEST` with the given options "given" on the command line.
  static SendOptions send_to(const std::string& dest) {
    SendOptions options;
    options.dest = dest;
    return options;
  }
  static void given(SendOptions& options, const std::string& name) {
    options.common.explicit_options.insert(name);
  }

  std::string error_of(const SendOptions& options) {
    try {
      plan_feeds(plan_send(options, store_));
    } catch (const UsageError& error) {
      return error.what();
    }
    return "";
  }

  std::filesystem::path dir_ = test::scratch_dir("send-plan");
  PresetStore store_ = show_presets();
};

TEST_F(SendPlanTest, APresetsSrtWithAPassphraseFileEncrypts) {
  SendOptions options = send_to("showsrt");
  options.common.key_file = file("pass.txt", kPassphrase);
  given(options, "key-file");
  const SendPlan plan = plan_send(options, store_);
  EXPECT_EQ(plan.options.transport, TransportKind::srt);
  EXPECT_EQ(plan.options.common.srt_passphrase, kPassphrase);
  EXPECT_FALSE(plan.options.common.key);
  const auto feeds = plan_feeds(plan);
  ASSERT_EQ(feeds.size(), 1u);
  EXPECT_EQ(feeds[0].request.srt.passphrase, kPassphrase);
  EXPECT_FALSE(feeds[0].request.key);
}

TEST_F(SendPlanTest, AHexKeyFileIsSrtsPassphraseToo) {
  // Before, a hex key file with an srt preset became a tcp HMAC key and the feed went unencrypted.
  SendOptions options = send_to("showsrt");
  options.common.key_file = file("hex.key", kHexKey);
  const auto feeds = plan_feeds(plan_send(options, store_));
  EXPECT_EQ(feeds[0].request.srt.passphrase, kHexKey);
  EXPECT_FALSE(feeds[0].request.key);
}

TEST_F(SendPlanTest, TheCommandLinesTransportWinsOverThePresetsAndDecidesTheKey) {
  SendOptions options = send_to("showsrt");
  options.transport = TransportKind::mtcp;
  given(options, "transport");
  options.common.key_file = file("hex.key", kHexKey);
  const auto feeds = plan_feeds(plan_send(options, store_));
  EXPECT_EQ(feeds[0].request.transport, TransportKind::mtcp);
  EXPECT_TRUE(feeds[0].request.key);
  EXPECT_EQ(plan_send(options, store_).options.common.srt_passphrase, "");
}

TEST_F(SendPlanTest, ATcpKeyFileMustBeAnHmacKeyAndSaysWhereItWasNamed) {
  SendOptions options = send_to("showmtcp");
  options.common.key_file = file("pass.txt", kPassphrase);
  EXPECT_NE(error_of(options).find("--key-file: "), std::string::npos) << error_of(options);
  EXPECT_NE(error_of(options).find("64 hex digits"), std::string::npos) << error_of(options);
}

TEST_F(SendPlanTest, ADestinationsKeyFileIsNamedWithItsFileAndLine) {
  const std::string error = error_of(send_to("keyed"));
  EXPECT_NE(error.find("destination 'keyed' key_file (cfg.toml:17): cannot read "
                       "'/nonexistent/show.pass'"),
            std::string::npos)
      << error;
  // --key-file wins over the destination's.
  SendOptions options = send_to("keyed");
  options.common.key_file = file("pass.txt", kPassphrase);
  EXPECT_EQ(plan_send(options, store_).options.common.srt_passphrase, kPassphrase);
}

TEST_F(SendPlanTest, AnSrtPassphraseOfTheWrongLengthIsRefused) {
  SendOptions options = send_to("showsrt");
  options.common.key_file = file("short.txt", "short");
  EXPECT_NE(error_of(options).find("--key-file: the passphrase in"), std::string::npos)
      << error_of(options);
  EXPECT_NE(error_of(options).find("has 5 characters; SRT needs 10 to 79"), std::string::npos)
      << error_of(options);
}

TEST_F(SendPlanTest, ConnsApplyToAPresetsMtcpAndAreRefusedForTcpNamingWhoChoseIt) {
  SendOptions options = send_to("showmtcp");
  options.connections = 6;
  given(options, "conns");
  const auto feeds = plan_feeds(plan_send(options, store_));
  EXPECT_EQ(feeds[0].request.transport, TransportKind::mtcp);
  EXPECT_EQ(feeds[0].request.connections, 6u);

  options.dest = "showtcp";
  EXPECT_EQ(error_of(options),
            "--conns: only applies to --transport mtcp or srt (the transport is tcp: "
            "destination 'showtcp' says so (cfg.toml:12))");
  options.dest = "127.0.0.1:9000";
  EXPECT_EQ(error_of(options),
            "--conns: only applies to --transport mtcp or srt (the transport is tcp, the "
            "default)");
  options.transport = TransportKind::tcp;
  given(options, "transport");
  EXPECT_EQ(error_of(options),
            "--conns: only applies to --transport mtcp or srt (the transport is tcp)");
}

TEST_F(SendPlanTest, APresetsConnsBelongToTheTransportThatPresetNames) {
  store_.load_text(R"([destinations.mtcp8]
hosts = ["127.0.0.1"]
transport = "mtcp"
conns = 8

[destinations.srt3]
hosts = ["127.0.0.1"]
transport = "srt"
conns = 3

[profiles.srtshow]
destination = "mtcp8"
transport = "srt"
)",
                   "more.toml");
  // The profile asks for srt; the destination's 8 are mtcp's: srt is not striped.
  SendOptions options;
  options.profile = "srtshow";
  EXPECT_EQ(plan_send(options, store_).options.transport, TransportKind::srt);
  EXPECT_EQ(plan_send(options, store_).options.connections, 0u);
  // --transport mtcp to an srt destination: its 3 stripes are not mtcp's sub-connections.
  options = send_to("srt3");
  options.transport = TransportKind::mtcp;
  given(options, "transport");
  EXPECT_EQ(plan_send(options, store_).options.connections, 0u);
  // Its own transport keeps them.
  EXPECT_EQ(plan_send(send_to("srt3"), store_).options.connections, 3u);
  EXPECT_EQ(plan_send(send_to("mtcp8"), store_).options.connections, 8u);
}

TEST_F(SendPlanTest, MuxTsFollowsThePresetsTransport) {
  SendOptions options = send_to("showsrt");
  options.format = "dnxhd220";
  options.mux = Mux::ts;
  given(options, "mux");
  const auto feeds = plan_feeds(plan_send(options, store_));
  EXPECT_EQ(feeds[0].wire.mux, Mux::ts);
  EXPECT_EQ(feeds[0].wire.transport, TransportKind::srt);
  options.dest = "showmtcp";
  EXPECT_EQ(error_of(options).rfind("--mux ts", 0), 0u) << error_of(options);
  EXPECT_NE(error_of(options).find("(the transport is mtcp: destination 'showmtcp' says so "
                                   "(cfg.toml:8))"),
            std::string::npos)
      << error_of(options);
}

}  // namespace
}  // namespace hdstream
