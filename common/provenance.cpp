#include "common/provenance.hpp"

#include <unistd.h>

#include <array>
#include <chrono>

#include <fmt/chrono.h>
#include <fmt/format.h>

namespace hdstream {

std::string host_name() {
  std::array<char, 256> name{};
  if (::gethostname(name.data(), name.size() - 1) != 0 || name[0] == '\0') return "localhost";
  return name.data();
}

std::string hdstream_version() {
  return HDSTREAM_VERSION;
}

std::string receiver_identity() {
  return fmt::format("{} (hdstream {})", host_name(), hdstream_version());
}

std::string utc_now() {
  return fmt::format(
      "{:%Y-%m-%dT%H:%M:%SZ}",
      fmt::gmtime(std::chrono::system_clock::to_time_t(std::chrono::system_clock::now())));
}

}  // namespace hdstream
