#include "common/endpoint.hpp"

#include <gtest/gtest.h>

namespace hdstream {
namespace {

TEST(Endpoint, ParsesHostsAndPorts) {
  EXPECT_EQ(parse_endpoint("127.0.0.1:9000"), (Endpoint{"127.0.0.1", 9000}));
  EXPECT_EQ(parse_endpoint("portland.example:5000"), (Endpoint{"portland.example", 5000}));
  EXPECT_EQ(parse_endpoint("[::1]:9000"), (Endpoint{"::1", 9000}));
  EXPECT_EQ(parse_endpoint(":9000", true), (Endpoint{"0.0.0.0", 9000}));
  EXPECT_EQ(parse_endpoint("127.0.0.1:0", true), (Endpoint{"127.0.0.1", 0}));
}

TEST(Endpoint, RendersBackTheSameWay) {
  EXPECT_EQ((Endpoint{"::1", 9000}).to_string(), "[::1]:9000");
  EXPECT_EQ((Endpoint{"10.0.0.1", 1}).to_string(), "10.0.0.1:1");
}

TEST(Endpoint, RejectsMalformedAddressesWithOneLine) {
  for (const char* bad : {"", "9000", "host", "host:", "host:port", "host:65536", "host:-1",
                          "host:0", ":9000", "::1:9000", "host:90 00", "host:9000x"}) {
    EXPECT_THROW(parse_endpoint(bad), EndpointError) << bad;
  }
  try {
    parse_endpoint("127.0.0.1");
  } catch (const EndpointError& error) {
    EXPECT_STREQ(error.what(), "invalid address '127.0.0.1': missing ':PORT' (expected HOST:PORT)");
  }
}

}  // namespace
}  // namespace hdstream
