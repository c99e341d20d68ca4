#include "common/units.hpp"

#include <gtest/gtest.h>

namespace hdstream {
namespace {

using namespace std::chrono_literals;

TEST(ParseRate, AcceptsSiSuffixes) {
  EXPECT_EQ(parse_rate_bps("270M"), 270'000'000u);
  EXPECT_EQ(parse_rate_bps("1.5G"), 1'500'000'000u);
  EXPECT_EQ(parse_rate_bps("800k"), 800'000u);
  EXPECT_EQ(parse_rate_bps("2.488Gbps"), 2'488'000'000u);
  EXPECT_EQ(parse_rate_bps("1000"), 1000u);
  EXPECT_EQ(parse_rate_bps("995Mbps"), 995'000'000u);
}

TEST(ParseRate, RejectsMalformedInput) {
  for (const char* bad : {"", "M", "abc", "-5M", "+5M", "270MM", "270 M", "1e9", "inf", "nan",
                          "270X", "0", "0.1", "99999999999999999999G", "1.5.2G"}) {
    EXPECT_THROW(parse_rate_bps(bad), UnitError) << bad;
  }
}

TEST(ParseRate, ErrorNamesTheTextAndTheFix) {
  try {
    parse_rate_bps("270Q");
    FAIL() << "expected UnitError";
  } catch (const UnitError& error) {
    EXPECT_STREQ(error.what(),
                 "invalid rate '270Q': unknown unit 'Q', expected k, M, G or T (bits per second)");
  }
}

TEST(ParsePercentage, TakesANumberWithOrWithoutItsSign) {
  EXPECT_EQ(parse_percentage("99.5%"), 99.5);
  EXPECT_EQ(parse_percentage("30"), 30);
  for (const char* bad : {"", "%", "x%", "99%%", "-1%", "9 9%", "1e3%", "nan%"}) {
    EXPECT_THROW(parse_percentage(bad), UnitError) << bad;
  }
  try {
    parse_percentage("99x%");
    FAIL();
  } catch (const UnitError& error) {
    EXPECT_STREQ(error.what(), "invalid percentage '99x%': expected a number, e.g. 99.5%");
  }
}

TEST(ParsePercentList, ReadsStepsInOrder) {
  EXPECT_EQ(parse_percent_list("25,50,75,100"), (std::vector<double>{25, 50, 75, 100}));
  EXPECT_EQ(parse_percent_list("10%,12.5%"), (std::vector<double>{10, 12.5}));
  EXPECT_EQ(parse_percent_list("110"), (std::vector<double>{110}));
}

TEST(ParsePercentList, RejectsMalformedInput) {
  for (const char* bad :
       {"", ",", "25,,50", "25,", "0", "-5", "1001", "25x", "abc", "25%%", "nan", "inf", "1e9"}) {
    EXPECT_THROW(parse_percent_list(bad), UnitError) << bad;
  }
  try {
    parse_percent_list("25,x");
    FAIL();
  } catch (const UnitError& error) {
    EXPECT_STREQ(error.what(), "invalid percentage 'x': expected a number first");
  }
}

TEST(ParseDuration, AcceptsTimeSuffixes) {
  EXPECT_EQ(parse_duration("10s"), 10s);
  EXPECT_EQ(parse_duration("250ms"), 250ms);
  EXPECT_EQ(parse_duration("1.5s"), 1500ms);
  EXPECT_EQ(parse_duration("2m"), 120s);
  EXPECT_EQ(parse_duration("1h"), 3600s);
  EXPECT_EQ(parse_duration("500us"), 500us);
  EXPECT_EQ(parse_duration("7"), 7s);
  EXPECT_EQ(parse_duration("0"), 0s);
}

TEST(ParseDuration, RejectsMalformedInput) {
  for (const char* bad :
       {"", "s", "ten", "-1s", "10 s", "10sec", "10ss", "1e3s", "inf", "999999999999999h"}) {
    EXPECT_THROW(parse_duration(bad), UnitError) << bad;
  }
}

TEST(ParseBytes, UsesBinaryMultiples) {
  EXPECT_EQ(parse_bytes("64K"), 65536u);
  EXPECT_EQ(parse_bytes("4M"), 4u << 20);
  EXPECT_EQ(parse_bytes("1G"), 1u << 30);
  EXPECT_EQ(parse_bytes("1500"), 1500u);
  EXPECT_THROW(parse_bytes("64Q"), UnitError);
  EXPECT_THROW(parse_bytes("-1K"), UnitError);
}

TEST(Format, RendersReadableUnits) {
  EXPECT_EQ(format_rate(270e6), "270 Mbps");
  EXPECT_EQ(format_rate(1.35e9), "1.35 Gbps");
  EXPECT_EQ(format_duration(250ms), "250 ms");
  EXPECT_EQ(format_duration(10s), "10 s");
}

TEST(Spell, WritesWhatTheCommandLineTakesInItsLargestExactUnit) {
  EXPECT_EQ(spell_rate(270'000'000), "270M");
  EXPECT_EQ(spell_rate(2'488'000'000), "2488M");
  EXPECT_EQ(spell_rate(10'000'000'000), "10G");
  EXPECT_EQ(spell_rate(1'500), "1500");
  EXPECT_EQ(spell_rate(7), "7");
  EXPECT_EQ(spell_duration(120ms), "120ms");
  EXPECT_EQ(spell_duration(10s), "10s");
  EXPECT_EQ(spell_duration(90s), "90s");
  EXPECT_EQ(spell_duration(120s), "2m");
  EXPECT_EQ(spell_duration(1500us), "1500us");
  EXPECT_EQ(spell_duration(0s), "0");
  EXPECT_EQ(spell_bytes(65536), "64K");
  EXPECT_EQ(spell_bytes(4u << 20), "4M");
  EXPECT_EQ(spell_bytes(1500), "1500");
}

TEST(Spell, EveryValueReadsBackAsItself) {
  for (std::uint64_t bps :
       {std::uint64_t{1}, std::uint64_t{999}, std::uint64_t{1'000}, std::uint64_t{270'000'000},
        std::uint64_t{10'600'000'000}, std::uint64_t{123'456'789}}) {
    EXPECT_EQ(parse_rate_bps(spell_rate(bps)), bps) << bps;
  }
  for (std::int64_t ns :
       {std::int64_t{1}, std::int64_t{1'000}, std::int64_t{120'000'000},
        std::int64_t{60'000'000'000}, std::int64_t{3'600'000'000'000}, std::int64_t{1'234'567}}) {
    EXPECT_EQ(parse_duration(spell_duration(std::chrono::nanoseconds(ns))).count(), ns) << ns;
  }
  for (std::uint64_t bytes : {std::uint64_t{1}, std::uint64_t{1024}, std::uint64_t{65536},
                              std::uint64_t{1'000'000}, std::uint64_t{3} << 30}) {
    EXPECT_EQ(parse_bytes(spell_bytes(bytes)), bytes) << bytes;
  }
}

}  // namespace
}  // namespace hdstream
