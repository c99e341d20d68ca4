// Text a peer sent, made safe to print anywhere (a terminal, a log, a panel): every byte but
// printable ASCII becomes '?', so no escape sequence moves a cursor or retitles a window and no
// invalid UTF-8 reaches a log; cut to `max_bytes`.
//   log->warn("refused: {}", printable(ack.reason, 512));
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>

namespace hdstream {

inline std::string printable(std::string_view text, std::size_t max_bytes) {
  std::string out(text.substr(0, max_bytes));
  std::ranges::replace_if(
      out, [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f || c < 0; }, '?');
  return out;
}

}  // namespace hdstream
