// Human units on the command line and in presets.
//   parse_rate_bps("270M") == 270'000'000;  parse_duration("250ms") == 250ms
//   megabits_per_second(1'250'000, 0.1) == 100.0
#pragma once

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace hdstream {

// Thrown for text that is not a valid quantity; what() names the text and the expected form.
class UnitError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Bit rate with SI suffixes, bits per second: "270M", "1.5G", "800k", "2.5Gbps", "1000".
std::uint64_t parse_rate_bps(std::string_view text);

// Duration: "10s", "250ms", "1.5s", "2m", "1h", "500us". A bare number is seconds.
std::chrono::nanoseconds parse_duration(std::string_view text);

// Byte size with binary suffixes: "64K" = 65536, "4M", "1G", "1500".
std::uint64_t parse_bytes(std::string_view text);

// A percentage: "99.5%" or "99.5" -> 99.5 (not negative; a trailing % allowed).
double parse_percentage(std::string_view text);

// Percentages in a list, in order: "25,50,75,100" (a trailing % on each allowed). Each is more
// than 0 and at most 1000; the list is not empty.
std::vector<double> parse_percent_list(std::string_view text);

// The same quantities spelled as the command line takes them, exactly (the parsers above read
// them back to the same value): a default shown in --help, a default kept as text.
//   spell_rate(270'000'000) == "270M";  spell_duration(120ms) == "120ms";  spell_bytes(65536) ==
//   "64K"
std::string spell_rate(std::uint64_t bits_per_second);
std::string spell_duration(std::chrono::nanoseconds duration);
std::string spell_bytes(std::uint64_t bytes);

// "270 Mbps"-style rendering for logs.
std::string format_rate(double bits_per_second);
// "250 ms" / "10 s" rendering for logs.
std::string format_duration(std::chrono::nanoseconds duration);

// The rate of `bytes` moved in `seconds`, in Mbps (10^6 bits per second); 0 over no time. The
// one place a byte count becomes a rate: snapshots, /stats.json, the summary and the panel.
inline double megabits_per_second(std::uint64_t bytes, double seconds) {
  return seconds > 0 ? static_cast<double>(bytes) * 8 / seconds / 1e6 : 0.0;
}

}  // namespace hdstream
