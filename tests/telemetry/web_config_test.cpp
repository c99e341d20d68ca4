// Prometheus web config files (server and client side) and basic authentication against bcrypt
// hashes: what a valid file gives, and one line naming the file, the line and the fix for
// everything else, hostile headers included.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "telemetry/password_check.hpp"
#include "telemetry/web_config.hpp"
#include "tests/support/process.hpp"
#include "tests/telemetry/tls_files.hpp"

namespace hdstream {
namespace {

class WebConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::scratch_dir("web-config");
    test::write_file(dir_ / "server.crt", "not read here\n");
    test::write_file(dir_ / "server.key", "not read here\n");
  }

  std::filesystem::path config(const std::string& text) {
    return test::write_file(dir_ / "web.yml", text);
  }

  // The one line load_web_config throws for `text`.
  std::string error_of(const std::string& text) {
    try {
      load_web_config(config(text));
    } catch (const WebConfigError& error) {
      return error.what();
    }
    return "no error";
  }

  std::filesystem::path dir_;
};

TEST_F(WebConfigTest, TlsAndUsersAreReadWithPathsRelativeToTheFile) {
  const std::string hash = test::bcrypt_hash("secret");
  const auto web =
      load_web_config(config("tls_server_config:\n"
                             "  cert_file: server.crt\n"
                             "  key_file: " +
                             (dir_ / "server.key").string() +
                             "\n"
                             "  min_version: TLS13\n"
                             "  client_auth_type: NoClientCert\n"
                             "basic_auth_users:\n"
                             "  prometheus: " +
                             hash +
                             "\n"
                             "  'monitor': \"" +
                             hash + "\"\n"));
  ASSERT_TRUE(web.tls);
  EXPECT_EQ(web.tls->cert_file, dir_ / "server.crt");
  EXPECT_EQ(web.tls->key_file, dir_ / "server.key");
  EXPECT_EQ(web.tls->min_version, TlsVersion::tls13);
  ASSERT_EQ(web.basic_auth_users.size(), 2u);
  EXPECT_EQ(web.basic_auth_users.at("prometheus"), hash);
  EXPECT_EQ(web.basic_auth_users.at("monitor"), hash);
}

TEST_F(WebConfigTest, AnEmptyFileMeansPlainHttpWithoutPasswords) {
  const auto web = load_web_config(config(""));
  EXPECT_FALSE(web.tls);
  EXPECT_TRUE(web.basic_auth_users.empty());
}

TEST_F(WebConfigTest, EveryMistakeIsOneLineNamingTheFileTheLineAndTheFix) {
  const std::string file = (dir_ / "web.yml").string();
  // A misspelt setting is refused, not ignored.
  EXPECT_EQ(error_of("tls_server_config:\n  cert_file: server.crt\n  key_flie: server.key\n"),
            file +
                ":3: unknown setting tls_server_config.key_flie (known: cert_file, "
                "client_auth_type, key_file, min_version)");
  // What exporter-toolkit has and hdstream does not is named.
  EXPECT_EQ(error_of("tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
                     "  cipher_suites: [TLS_AES_128_GCM_SHA256]\n"),
            file + ":4: tls_server_config.cipher_suites is not supported by hdstream; remove it");
  EXPECT_EQ(error_of("tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
                     "  client_auth_type: RequireAndVerifyClientCert\n"),
            file +
                ":4: client_auth_type: only NoClientCert (client certificates are not "
                "supported by hdstream; use basic_auth_users)");
  EXPECT_EQ(error_of("tls_server_config:\n  cert_file: server.crt\n"),
            file + ":2: tls_server_config needs cert_file and key_file");
  EXPECT_EQ(error_of("tls_server_config:\n  cert_file: missing.crt\n  key_file: server.key\n"),
            file + ":2: cert_file " + (dir_ / "missing.crt").string() + ": cannot read it");
  EXPECT_EQ(error_of("tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
                     "  min_version: TLS10\n"),
            file + ":4: min_version: TLS12 or TLS13, not TLS10");
  // A password in clear, or any other non-bcrypt text, is not a hash.
  EXPECT_EQ(error_of("basic_auth_users:\n  alice: secret\n"),
            file +
                ":2: the password of alice is not a bcrypt hash ($2b$..., e.g. from "
                "`htpasswd -nBC 10 alice`)");
  EXPECT_EQ(error_of("basic_auth_users:\n  alice: $2b$04$tooshort\n"),
            file +
                ":2: the password of alice is not a bcrypt hash ($2b$..., e.g. from "
                "`htpasswd -nBC 10 alice`)");
  EXPECT_EQ(error_of("basic_auth_users: [alice]\n"),
            file + ":1: basic_auth_users must map each user to a bcrypt hash");
  EXPECT_EQ(error_of("http_server_config:\n  http2: false\n"),
            file + ":2: http_server_config.http2 is not supported by hdstream; remove it");
  EXPECT_EQ(error_of("- a list\n"), file + ":1: expected a mapping of settings");
  // Not YAML at all: yaml-cpp's own words, with the file and line.
  EXPECT_TRUE(error_of("tls_server_config: [\n").starts_with(file + ":2: not YAML: "))
      << error_of("tls_server_config: [\n");
}

TEST_F(WebConfigTest, AFileTooLargeToBeAConfigurationIsRefusedUnread) {
  const std::string error = error_of(std::string(65 * 1024, '#'));
  EXPECT_EQ(error, "--web-config " + (dir_ / "web.yml").string() +
                       ": 66560 bytes; a configuration file is at most 65536");
  try {
    load_web_config(dir_ / "absent.yml");
    ADD_FAILURE() << "an absent file was read";
  } catch (const WebConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              "--web-config " + (dir_ / "absent.yml").string() + ": No such file or directory");
  }
}

TEST_F(WebConfigTest, AClientFileGivesTheCaTheNameAndTheTrimmedPasswordFile) {
  test::write_file(dir_ / "ca.crt", "not read here\n");
  test::write_file(dir_ / "scrape.pass", "  s3cret \n\n");
  const auto path = test::write_file(dir_ / "http.yml",
                                     "tls_config:\n"
                                     "  ca_file: ca.crt\n"
                                     "  server_name: studio.example\n"
                                     "basic_auth:\n"
                                     "  username: prometheus\n"
                                     "  password_file: scrape.pass\n");
  const auto client = load_http_client_config(path);
  ASSERT_TRUE(client.tls && client.basic_auth);
  EXPECT_EQ(client.tls->ca_file, dir_ / "ca.crt");
  EXPECT_EQ(client.tls->server_name, "studio.example");
  EXPECT_FALSE(client.tls->insecure_skip_verify);
  EXPECT_EQ(client.basic_auth->username, "prometheus");
  EXPECT_EQ(client.basic_auth->password, "s3cret");

  auto error_of_client = [&](const std::string& text) -> std::string {
    try {
      load_http_client_config(test::write_file(dir_ / "http.yml", text));
    } catch (const WebConfigError& error) {
      return error.what();
    }
    return "no error";
  };
  const std::string file = path.string();
  EXPECT_EQ(error_of_client("basic_auth:\n  username: a\n  password: x\n  password_file: "
                            "scrape.pass\n"),
            file + ":4: give password or password_file, not both");
  EXPECT_EQ(error_of_client("basic_auth:\n  password: x\n"),
            file + ":2: basic_auth needs a username (without ':')");
  EXPECT_EQ(error_of_client("bearer_token: abc\n"),
            file + ":1: bearer_token is not supported by hdstream; remove it");
  EXPECT_EQ(error_of_client("tls_config:\n  insecure_skip_verify: maybe\n"),
            file + ":2: insecure_skip_verify must be true or false");
}

TEST(BasicAuthorization, ParsesWhatClientsSendAndRefusesTheRest) {
  const auto header = basic_authorization({"prometheus", "pa:ss word"});
  EXPECT_EQ(header, "Basic cHJvbWV0aGV1czpwYTpzcyB3b3Jk");
  const auto parsed = parse_basic_authorization(header);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->user, "prometheus");
  EXPECT_EQ(parsed->password, "pa:ss word");  // the first ':' ends the user
  // The scheme is case-insensitive; padding is decoded, not kept.
  const auto lower = parse_basic_authorization("basic YTpi");  // "a:b"
  ASSERT_TRUE(lower);
  EXPECT_EQ(lower->password, "b");
  const auto padded = parse_basic_authorization("Basic YTpiYw==");  // "a:bc"
  ASSERT_TRUE(padded);
  EXPECT_EQ(padded->password, "bc");
  EXPECT_EQ(parse_basic_authorization("Basic YTo=")->password, "");  // "a:" is an empty password

  for (const char* hostile : {"", "Basic", "Basic ", "Bearer YTpi", "Basic YTpi!", "Basic YTp",
                              "Basic ====", "Basic Ygo=",  // "b\n": no ':'
                              "Basic OmI=",                // ":b": no user
                              "BasicYTpi"}) {
    EXPECT_FALSE(parse_basic_authorization(hostile)) << hostile;
  }
  EXPECT_FALSE(parse_basic_authorization("Basic " + std::string(8192, 'A')));
}

TEST(PasswordCheck, OnlyTheRightPasswordOfAKnownUserPassesAndOnlyItIsRemembered) {
  PasswordCheck check({{"prometheus", test::bcrypt_hash("right")}});
  ASSERT_TRUE(check.enabled());
  const Credentials right{"prometheus", "right"};
  const Credentials wrong{"prometheus", "wrong"};
  const Credentials stranger{"stranger", "right"};
  EXPECT_FALSE(check.remembered(right));
  EXPECT_FALSE(check.verify(wrong));
  EXPECT_FALSE(check.verify(stranger));
  EXPECT_FALSE(check.remembered(wrong));
  EXPECT_TRUE(check.verify(right));
  EXPECT_TRUE(check.remembered(right));  // the next request costs no bcrypt
  EXPECT_FALSE(check.remembered(wrong));
  EXPECT_FALSE(check.remembered(stranger));
  EXPECT_FALSE(PasswordCheck({}).enabled());
}

TEST(PasswordCheck, BcryptHashesAreToldFromEverythingElse) {
  EXPECT_TRUE(is_bcrypt_hash(test::bcrypt_hash("x")));
  // htpasswd -B writes $2y$; Go's bcrypt $2a$.
  std::string y = test::bcrypt_hash("x");
  y[2] = 'y';
  EXPECT_TRUE(is_bcrypt_hash(y));
  for (const char* not_bcrypt : {"", "x", "$1$abcdefgh$0123456789012345678901",
                                 "$5$rounds=5000$salt$hash", "$2b$99$abcdefghijklmnopqrstuu"}) {
    EXPECT_FALSE(is_bcrypt_hash(not_bcrypt)) << not_bcrypt;
  }
}

}  // namespace
}  // namespace hdstream
