// Who and when, as the reports and the HELLO_ACK say it.
#include "common/provenance.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <array>
#include <chrono>
#include <ctime>
#include <regex>

namespace hdstream {
namespace {

TEST(Provenance, NamesThisHostAndVersion) {
  std::array<char, 256> name{};
  ASSERT_EQ(::gethostname(name.data(), name.size() - 1), 0);
  EXPECT_EQ(host_name(), name.data());
  EXPECT_TRUE(std::regex_match(hdstream_version(), std::regex(R"(\d+\.\d+\.\d+)")))
      << hdstream_version();
  EXPECT_EQ(receiver_identity(), host_name() + " (hdstream " + hdstream_version() + ")");
}

TEST(Provenance, UtcNowIsIso8601ToTheSecondAndNow) {
  const auto before = std::chrono::system_clock::now();
  const std::string now = utc_now();
  const auto after = std::chrono::system_clock::now();
  ASSERT_TRUE(std::regex_match(now, std::regex(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)"))) << now;
  std::tm parsed{};
  ASSERT_NE(::strptime(now.c_str(), "%Y-%m-%dT%H:%M:%SZ", &parsed), nullptr);
  const auto stamped = std::chrono::system_clock::from_time_t(::timegm(&parsed));
  // Truncated to the second: at most a second before `before`, never after `after`.
  EXPECT_GE(stamped, before - std::chrono::seconds(1));
  EXPECT_LE(stamped, after);
}

}  // namespace
}  // namespace hdstream
