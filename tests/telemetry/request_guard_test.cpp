// Who may ask the telemetry server what: the Host a request names, the origin a browser says it
// comes from, and the control key a cut needs, with hostile headers among them.
#include <gtest/gtest.h>

#include <string>

#include "common/provenance.hpp"
#include "telemetry/request_guard.hpp"

namespace hdstream {
namespace {

TEST(HostOf, TakesTheNameOrAddressWithoutItsPort) {
  EXPECT_EQ(host_of("127.0.0.1:9321"), "127.0.0.1");
  EXPECT_EQ(host_of("127.0.0.1"), "127.0.0.1");
  EXPECT_EQ(host_of("Studio-A.example:80"), "studio-a.example");
  EXPECT_EQ(host_of("[::1]:9321"), "::1");
  EXPECT_EQ(host_of("[::1]"), "::1");
  EXPECT_EQ(host_of("[::ffff:127.0.0.1]:1"), "::ffff:127.0.0.1");
}

TEST(HostOf, RefusesWhatIsNotAHostAndPort) {
  for (const char* bad :
       {"", ":9321", "a b", "a:b", "a:", "a:123456", "[::1", "[::1]x", "[::1]:", "[]", "[::1]:9x",
        "[::1]:123456", "::1", "evil.example/", "x\r\nSet-Cookie: y", "\x1b[31mred", "caf\xc3\xa9",
        "a@b", "user:pw@host"}) {
    EXPECT_FALSE(host_of(bad).has_value()) << bad;
  }
}

RequestGuard guard(std::vector<std::string> names = {}) {
  return RequestGuard({.names = std::move(names),
                       .control_token = [](std::string_view token) { return token == "s3cret"; }});
}

TEST(RequestGuard, AnswersItsAddressLocalhostTheMachinesNameAndNamesItWasGiven) {
  const auto g = guard({"Studio-A"});
  EXPECT_FALSE(g.check({.host = "127.0.0.1:9321"}, "127.0.0.1"));
  EXPECT_FALSE(g.check({.host = "localhost:9321"}, "127.0.0.1"));
  EXPECT_FALSE(g.check({.host = "LOCALHOST"}, "127.0.0.1"));
  EXPECT_FALSE(g.check({.host = host_name() + ":9321"}, "10.0.0.5"));
  EXPECT_FALSE(g.check({.host = "studio-a:9321"}, "10.0.0.5"));
  EXPECT_FALSE(g.check({.host = "10.0.0.5:9321"}, "10.0.0.5"));
  // A dual-stack listener sees an IPv4 client at its IPv4-mapped address.
  EXPECT_FALSE(g.check({.host = "10.0.0.5"}, "::ffff:10.0.0.5"));
  EXPECT_FALSE(g.check({.host = "[::1]:9321"}, "::1"));
}

TEST(RequestGuard, RefusesAHostThatNamesAnotherServer) {
  const auto g = guard({"studio-a"});
  // DNS rebinding: the attacker's name, now resolving to this address.
  const auto rebound = g.check({.host = "evil.example:9321"}, "127.0.0.1");
  ASSERT_TRUE(rebound);
  EXPECT_EQ(rebound->status, 403u);
  EXPECT_NE(rebound->reason.find("'evil.example' is not a name of this server"), std::string::npos);
  EXPECT_TRUE(g.check({.host = "10.0.0.6"}, "10.0.0.5"));  // another address
  EXPECT_TRUE(g.check({.host = "127.0.0.1"}, "10.0.0.5"));
  EXPECT_TRUE(g.check({.host = "studio-b"}, "10.0.0.5"));
  EXPECT_TRUE(g.check({.host = "studio-a.evil.example"}, "10.0.0.5"));
  const auto missing = g.check({.host = ""}, "127.0.0.1");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 400u);
  EXPECT_EQ(missing->reason, "a Host header is required");
  const auto garbage = g.check({.host = "\x1b]0;pwned\x07"}, "127.0.0.1");
  ASSERT_TRUE(garbage);
  EXPECT_EQ(garbage->status, 400u);
  // The reason never echoes what was not a host name (it is logged).
  EXPECT_EQ(garbage->reason.find('\x1b'), std::string::npos);
}

TEST(RequestGuard, RefusesWhatABrowserSendsForAPageOfAnotherOrigin) {
  const auto g = guard();
  const RequestOrigin own{.host = "127.0.0.1:9321", .origin = "http://127.0.0.1:9321"};
  EXPECT_FALSE(g.check(own, "127.0.0.1"));
  EXPECT_FALSE(g.check({.host = "127.0.0.1:9321", .fetch_site = "same-origin"}, "127.0.0.1"));
  EXPECT_FALSE(g.check({.host = "127.0.0.1:9321", .fetch_site = "none"}, "127.0.0.1"));
  for (const char* origin : {"http://evil.example", "http://127.0.0.1:9322", "https://127.0.0.1",
                             "null", "127.0.0.1:9321", "http://", "file://"}) {
    const auto refused = g.check({.host = "127.0.0.1:9321", .origin = origin}, "127.0.0.1");
    ASSERT_TRUE(refused) << origin;
    EXPECT_EQ(refused->status, 403u);
    EXPECT_EQ(refused->reason, "cross-origin requests are refused");
  }
  // An <img> or a form from another site sends no Origin on a GET, but says where it comes from.
  for (const char* site : {"cross-site", "same-site"}) {
    EXPECT_TRUE(g.check({.host = "127.0.0.1:9321", .fetch_site = site}, "127.0.0.1")) << site;
  }
}

TEST(RequestGuard, ACutNeedsTheControlKeyAsABearerToken) {
  const auto g = guard();
  EXPECT_FALSE(g.check_control("Bearer s3cret"));
  EXPECT_FALSE(g.check_control("bearer  s3cret "));
  for (const char* bad : {"", "Bearer", "Bearer ", "Bearer s3cre", "Bearer s3cret2", "s3cret",
                          "Basic s3cret", "Bearers3cret", "Bearer s3cret\r\nX: y"}) {
    const auto refused = g.check_control(bad);
    ASSERT_TRUE(refused) << bad;
    EXPECT_EQ(refused->status, 401u);
    EXPECT_TRUE(refused->wants_credentials);
  }
}

TEST(RequestGuard, WithoutAControlKeyHttpControlIsOffAndSaysHowToTurnItOn) {
  const RequestGuard g({});
  const auto refused = g.check_control("Bearer anything");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 403u);
  EXPECT_FALSE(refused->wants_credentials);
  EXPECT_NE(refused->reason.find("HTTP control is off: start the receiver with --control-key-file"),
            std::string::npos);
  EXPECT_EQ(refused->reason.find('\n'), std::string::npos);
}

}  // namespace
}  // namespace hdstream
