// Who and when, as the reports and the HELLO_ACK say it.
#include "common/provenance.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <ctime>

namespace hdstream {
namespace {

TEST(Provenance, NamesThisHostAndVersion) {
  std::array<char, 256> name{};
  ASSERT_EQ(::gethostname(name.data(), name.size() - 1), 0);
  EXPECT_EQ(host_name(), name.data());
  // MAJOR.MINOR.PATCH and nothing else (std::regex trips GCC 12's warnings under ASan).
  int major = -1, minor = -1, patch = -1, consumed = 0;
  const std::string version = hdstream_version();
  EXPECT_EQ(std::sscanf(version.c_str(), "%d.%d.%d%n", &major, &minor, &patch, &consumed), 3);
  EXPECT_EQ(static_cast<std::size_t>(consumed), version.size()) << version;
  EXPECT_EQ(receiver_identity(), host_name() + " (hdstream " + hdstream_version() + ")");
}

TEST(Provenance, UtcNowIsIso8601ToTheSecondAndNow) {
  const auto before = std::chrono::system_clock::now();
  const std::string now = utc_now();
  const auto after = std::chrono::system_clock::now();
  ASSERT_EQ(now.size(), std::string("2026-11-27T16:05:00Z").size()) << now;
  std::tm parsed{};
  const char* end = ::strptime(now.c_str(), "%Y-%m-%dT%H:%M:%SZ", &parsed);
  ASSERT_NE(end, nullptr) << now;
  EXPECT_EQ(*end, '\0') << now;
  const auto stamped = std::chrono::system_clock::from_time_t(::timegm(&parsed));
  // Truncated to the second: at most a second before `before`, never after `after`.
  EXPECT_GE(stamped, before - std::chrono::seconds(1));
  EXPECT_LE(stamped, after);
}

}  // namespace
}  // namespace hdstream
