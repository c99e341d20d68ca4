#include "common/units.hpp"

#include "common/clock.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace hdstream {
namespace {

struct Suffix {
  std::string_view name;
  double scale;
};

// Splits "1.5Gbps" into 1.5 and "Gbps"; rejects empty, signed, non-finite and trailing junk.
std::pair<double, std::string_view> split_number(std::string_view text, std::string_view what) {
  auto fail = [&](std::string_view why) {
    return UnitError(fmt::format("invalid {} '{}': {}", what, text, why));
  };
  if (text.empty()) throw fail("empty");
  if (text.front() == '-' || text.front() == '+') throw fail("must be a positive number");
  double value = 0;
  auto [end, ec] =
      std::from_chars(text.data(), text.data() + text.size(), value, std::chars_format::fixed);
  if (ec != std::errc{}) throw fail("expected a number first");
  if (!std::isfinite(value)) throw fail("not a finite number");
  return {value, text.substr(static_cast<std::size_t>(end - text.data()))};
}

template <std::size_t N>
double scale_for(std::string_view text, std::string_view suffix, std::string_view what,
                 const std::array<Suffix, N>& table, std::string_view expected) {
  for (const auto& entry : table) {
    if (entry.name == suffix) return entry.scale;
  }
  throw UnitError(
      fmt::format("invalid {} '{}': unknown unit '{}', expected {}", what, text, suffix, expected));
}

std::uint64_t to_u64(double value, std::string_view text, std::string_view what) {
  // 2^64 itself is not representable; stay strictly below it.
  if (value >= 18446744073709549568.0) {
    throw UnitError(fmt::format("invalid {} '{}': too large", what, text));
  }
  return static_cast<std::uint64_t>(std::llround(value));
}

}  // namespace

std::uint64_t parse_rate_bps(std::string_view text) {
  static constexpr std::array<Suffix, 12> kRate{{
      {"", 1},
      {"bps", 1},
      {"k", 1e3},
      {"K", 1e3},
      {"kbps", 1e3},
      {"Kbps", 1e3},
      {"M", 1e6},
      {"Mbps", 1e6},
      {"G", 1e9},
      {"Gbps", 1e9},
      {"T", 1e12},
      {"Tbps", 1e12},
  }};
  auto [value, suffix] = split_number(text, "rate");
  double bps = value * scale_for(text, suffix, "rate", kRate, "k, M, G or T (bits per second)");
  if (bps < 1) throw UnitError(fmt::format("invalid rate '{}': must be at least 1 bps", text));
  return to_u64(bps, text, "rate");
}

double parse_percentage(std::string_view text) {
  std::string_view number = text;
  if (number.ends_with('%')) number.remove_suffix(1);
  auto [value, rest] = split_number(number, "percentage");
  if (!rest.empty()) {
    throw UnitError(fmt::format("invalid percentage '{}': expected a number, e.g. 99.5%", text));
  }
  return value;
}

std::vector<double> parse_percent_list(std::string_view text) {
  std::vector<double> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string_view item =
        text.substr(start, comma == std::string_view::npos ? text.npos : comma - start);
    const double value = parse_percentage(item);
    if (value <= 0 || value > 1000) {
      throw UnitError(
          fmt::format("invalid percentage '{}' in '{}': expected a number above 0 "
                      "and at most 1000, e.g. 25,50,75,100",
                      item, text));
    }
    out.push_back(value);
    if (comma == std::string_view::npos) return out;
    start = comma + 1;
  }
}

std::chrono::nanoseconds parse_duration(std::string_view text) {
  static constexpr std::array<Suffix, 7> kTime{{
      {"", 1e9},
      {"s", 1e9},
      {"ms", 1e6},
      {"us", 1e3},
      {"ns", 1},
      {"m", 60e9},
      {"h", 3600e9},
  }};
  auto [value, suffix] = split_number(text, "duration");
  double ns = value * scale_for(text, suffix, "duration", kTime, "h, m, s, ms, us or ns");
  if (ns > static_cast<double>(std::numeric_limits<std::int64_t>::max() / 2)) {
    throw UnitError(fmt::format("invalid duration '{}': too large", text));
  }
  return std::chrono::nanoseconds(static_cast<std::int64_t>(std::llround(ns)));
}

std::uint64_t parse_bytes(std::string_view text) {
  static constexpr std::array<Suffix, 9> kBytes{{
      {"", 1},
      {"B", 1},
      {"K", 1024.0},
      {"KiB", 1024.0},
      {"M", 1024.0 * 1024},
      {"MiB", 1024.0 * 1024},
      {"G", 1024.0 * 1024 * 1024},
      {"GiB", 1024.0 * 1024 * 1024},
      {"k", 1024.0},
  }};
  auto [value, suffix] = split_number(text, "size");
  return to_u64(value * scale_for(text, suffix, "size", kBytes, "K, M or G (binary)"), text,
                "size");
}

std::string format_rate(double bits_per_second) {
  if (bits_per_second >= 1e9) return fmt::format("{:.3g} Gbps", bits_per_second / 1e9);
  if (bits_per_second >= 1e6) return fmt::format("{:.4g} Mbps", bits_per_second / 1e6);
  if (bits_per_second >= 1e3) return fmt::format("{:.4g} kbps", bits_per_second / 1e3);
  return fmt::format("{:.0f} bps", bits_per_second);
}

std::string format_duration(std::chrono::nanoseconds duration) {
  if (duration == kForever) return "forever";
  auto ns = static_cast<double>(duration.count());
  if (ns >= 1e9) return fmt::format("{:g} s", ns / 1e9);
  if (ns >= 1e6) return fmt::format("{:g} ms", ns / 1e6);
  if (ns >= 1e3) return fmt::format("{:g} us", ns / 1e3);
  return fmt::format("{:g} ns", ns);
}

namespace {

// `value` in the largest unit that divides it exactly, else bare.
template <typename Unit, std::size_t N>
std::string spell(std::uint64_t value, const std::array<Unit, N>& units) {
  for (const auto& [suffix, scale] : units) {
    if (value != 0 && value % scale == 0) return fmt::format("{}{}", value / scale, suffix);
  }
  return std::to_string(value);
}

struct Unit {
  std::string_view suffix;
  std::uint64_t scale;
};

}  // namespace

std::string spell_rate(std::uint64_t bits_per_second) {
  static constexpr std::array<Unit, 4> kUnits{
      {{"T", 1'000'000'000'000}, {"G", 1'000'000'000}, {"M", 1'000'000}, {"k", 1'000}}};
  return spell(bits_per_second, kUnits);
}

std::string spell_duration(std::chrono::nanoseconds duration) {
  static constexpr std::array<Unit, 6> kUnits{{{"h", 3'600'000'000'000},
                                               {"m", 60'000'000'000},
                                               {"s", 1'000'000'000},
                                               {"ms", 1'000'000},
                                               {"us", 1'000},
                                               {"ns", 1}}};
  if (duration.count() <= 0) return "0";
  return spell(static_cast<std::uint64_t>(duration.count()), kUnits);
}

std::string spell_bytes(std::uint64_t bytes) {
  static constexpr std::array<Unit, 3> kUnits{{{"G", std::uint64_t{1} << 30},
                                               {"M", std::uint64_t{1} << 20},
                                               {"K", std::uint64_t{1} << 10}}};
  return spell(bytes, kUnits);
}

}  // namespace hdstream
