// One SRT message as text, for tests over real libsrt: waits up to ~5 s (receive() blocks up to
// 100 ms a call); nullopt if none came or the connection closed.
//   ASSERT_EQ(test::receive_message(accepted), "hello");
#pragma once

#include <array>
#include <optional>
#include <string>

#include "transport/srt_socket.hpp"

namespace hdstream::test {

inline std::optional<std::string> receive_message(SrtSocket& socket) {
  std::array<std::byte, 1500> buffer{};
  std::size_t received = 0;
  SrtIo io = SrtIo::timeout;
  for (int attempt = 0; attempt < 50 && io == SrtIo::timeout; ++attempt) {
    io = socket.receive(buffer, received);
  }
  if (io != SrtIo::ok) return std::nullopt;
  return std::string(reinterpret_cast<const char*>(buffer.data()), received);
}

}  // namespace hdstream::test
