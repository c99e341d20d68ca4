#include "transport/srt/srt_fec.hpp"

#include <charconv>
#include <cstdlib>
#include <initializer_list>
#include <vector>

#include <fmt/format.h>

namespace hdstream {
namespace {

constexpr std::size_t kMaxSpecBytes = 200;  // libsrt takes 512; a real spec is ~50
constexpr const char* kForms =
    "give COLS,ROWS[,LAYOUT] (e.g. 10,5,staircase) or libsrt's fec,cols:10,rows:5[,layout:L]"
    "[,arq:A]";

// Text from the command line, quoted for a one-line message: control bytes escaped, long text
// cut.
std::string quoted(std::string_view text) {
  std::string out = "'";
  for (std::size_t i = 0; i < text.size() && i < 40; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c >= 0x7f) {
      out += fmt::format("\\x{:02x}", c);
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  if (text.size() > 40) out += "...";
  return out + "'";
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  for (;;) {
    const auto at = text.find(separator);
    parts.push_back(text.substr(0, at));
    if (at == std::string_view::npos) return parts;
    text.remove_prefix(at + 1);
  }
}

// A whole number: digits with an optional leading '-', nothing else.
int whole_number(std::string_view name, std::string_view text, long min, long max,
                 std::string_view range) {
  long value = 0;
  const char* end = text.data() + text.size();
  const bool digits =
      !text.empty() && text != "-" &&
      text.find_first_not_of("0123456789", text[0] == '-' ? 1 : 0) == std::string_view::npos;
  if (!digits) throw SrtFecError(fmt::format("{} {} is not a whole number", name, quoted(text)));
  const auto [ptr, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc{} || ptr != end || value < min || value > max) {
    throw SrtFecError(fmt::format("{} {} is out of range ({})", name, quoted(text), range));
  }
  return static_cast<int>(value);
}

int parse_cols(std::string_view text) {
  return whole_number("cols", text, 2, kSrtFecMaxGroup, fmt::format("2..{}", kSrtFecMaxGroup));
}

int parse_rows(std::string_view text) {
  const std::string range =
      fmt::format("1: rows only, 2..{0}, or -{0}..-2: columns only", kSrtFecMaxGroup);
  const int rows = whole_number("rows", text, -kSrtFecMaxGroup, kSrtFecMaxGroup, range);
  if (rows == 0 || rows == -1) {
    throw SrtFecError(fmt::format("rows {} is out of range ({})", quoted(text), range));
  }
  return rows;
}

std::string parse_word(std::string_view name, std::string_view text,
                       std::initializer_list<std::string_view> allowed, const char* listed) {
  for (std::string_view word : allowed) {
    if (text == word) return std::string(text);
  }
  throw SrtFecError(fmt::format("{} {} is not {}", name, quoted(text), listed));
}

std::string parse_layout(std::string_view text) {
  return parse_word("layout", text, {"even", "staircase"}, "even or staircase");
}

SrtFec parse_short(const std::vector<std::string_view>& items) {
  if (items.size() < 2 || items.size() > 3) {
    throw SrtFecError(
        fmt::format("{} has {} part(s); {}", quoted(items.front()), items.size(), kForms));
  }
  SrtFec fec;
  fec.cols = parse_cols(items[0]);
  fec.rows = parse_rows(items[1]);
  if (items.size() == 3) fec.layout = parse_layout(items[2]);
  return fec;
}

SrtFec parse_full(const std::vector<std::string_view>& items) {
  SrtFec fec;
  bool have_cols = false;
  for (std::size_t i = 1; i < items.size(); ++i) {
    const auto colon = items[i].find(':');
    if (colon == std::string_view::npos) {
      throw SrtFecError(fmt::format("{} is not KEY:VALUE", quoted(items[i])));
    }
    const std::string_view key = items[i].substr(0, colon), value = items[i].substr(colon + 1);
    auto once = [&](bool given) {
      if (given) throw SrtFecError(fmt::format("key {} is given twice", quoted(key)));
    };
    if (key == "cols") {
      once(have_cols);
      fec.cols = parse_cols(value);
      have_cols = true;
    } else if (key == "rows") {
      once(fec.rows.has_value());
      fec.rows = parse_rows(value);
    } else if (key == "layout") {
      once(fec.layout.has_value());
      fec.layout = parse_layout(value);
    } else if (key == "arq") {
      once(fec.arq.has_value());
      fec.arq = parse_word("arq", value, {"never", "onreq", "always"}, "never, onreq or always");
    } else {
      throw SrtFecError(fmt::format(
          "unknown key {} (libsrt's fec filter takes cols, rows, layout, arq)", quoted(key)));
    }
  }
  if (!have_cols) throw SrtFecError("cols is missing (e.g. fec,cols:10,rows:5)");
  return fec;
}

}  // namespace

std::string SrtFec::filter() const {
  std::string out = fmt::format("fec,cols:{}", cols);
  if (rows) out += fmt::format(",rows:{}", *rows);
  if (layout) out += ",layout:" + *layout;
  if (arq) out += ",arq:" + *arq;
  return out;
}

double SrtFec::overhead() const {
  const int r = rows.value_or(1);
  const double row_packets = r > 0 ? 1.0 / cols : 0.0;
  const double column_packets = std::abs(r) >= 2 ? 1.0 / std::abs(r) : 0.0;
  return row_packets + column_packets;
}

int SrtFec::matrix_packets() const {
  return cols * std::abs(rows.value_or(1));
}

SrtFec parse_srt_fec(std::string_view text) {
  if (text.empty()) throw SrtFecError(fmt::format("empty; {}", kForms));
  if (text.size() > kMaxSpecBytes) {
    throw SrtFecError(fmt::format("{} bytes is too long; {}", text.size(), kForms));
  }
  const auto items = split(text, ',');
  const std::string_view first = items.front();
  if (first == "fec") return parse_full(items);
  if (!first.empty() && (first[0] == '-' || (first[0] >= '0' && first[0] <= '9'))) {
    return parse_short(items);
  }
  if (first.find(':') != std::string_view::npos) {
    throw SrtFecError(
        fmt::format("{} comes before the filter type; libsrt's form starts with fec, e.g. "
                    "fec,cols:10,rows:5",
                    quoted(first)));
  }
  throw SrtFecError(
      fmt::format("filter {} is not libsrt's built-in fec; {}", quoted(first), kForms));
}

}  // namespace hdstream
