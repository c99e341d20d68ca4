// Who wrote a report or answered a peer, and when: this host's name, the hdstream version and
// the time, each formatted in one place for the reports, /metrics and the HELLO_ACK.
//   fmt::print("{} (hdstream {}) at {}", host_name(), hdstream_version(), utc_now());
#pragma once

#include <string>

namespace hdstream {

// gethostname(); "localhost" when the kernel will not say.
std::string host_name();

// The project's version (CMake's PROJECT_VERSION), e.g. "0.1.0".
std::string hdstream_version();

// What this process says of itself when it accepts a feed (the HELLO_ACK's reason,
// docs/PROTOCOL.md): "portland-rx (hdstream 0.1.0)".
std::string receiver_identity();

// Now, in UTC, ISO 8601 to the second: "2026-11-27T16:05:00Z".
std::string utc_now();

}  // namespace hdstream
