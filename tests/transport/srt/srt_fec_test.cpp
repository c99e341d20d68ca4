// --srt-fec specs (transport/srt/srt_fec): both spellings become libsrt's filter string; anything
// else, hostile input included, is refused with one line naming what to fix.
#include "transport/srt/srt_fec.hpp"

#include <gtest/gtest.h>

#include <string>

namespace hdstream {
namespace {

TEST(SrtFec, TheShortFormBecomesLibsrtsFilterString) {
  EXPECT_EQ(parse_srt_fec("10,5").filter(), "fec,cols:10,rows:5");
  EXPECT_EQ(parse_srt_fec("10,5,staircase").filter(), "fec,cols:10,rows:5,layout:staircase");
  EXPECT_EQ(parse_srt_fec("4,4,even").filter(), "fec,cols:4,rows:4,layout:even");
  EXPECT_EQ(parse_srt_fec("20,1").filter(), "fec,cols:20,rows:1");    // rows only
  EXPECT_EQ(parse_srt_fec("10,-5").filter(), "fec,cols:10,rows:-5");  // columns only
  EXPECT_EQ(parse_srt_fec("2,256").filter(), "fec,cols:2,rows:256");  // the bounds
  EXPECT_EQ(parse_srt_fec("256,-256").filter(), "fec,cols:256,rows:-256");
}

TEST(SrtFec, LibsrtsOwnFormIsKeptInAnyOrderWithOnlyTheKeysGiven) {
  const SrtFec fec = parse_srt_fec("fec,cols:10,rows:5,layout:staircase,arq:onreq");
  EXPECT_EQ(fec.cols, 10);
  EXPECT_EQ(fec.rows, 5);
  EXPECT_EQ(fec.layout, "staircase");
  EXPECT_EQ(fec.arq, "onreq");
  EXPECT_EQ(fec.filter(), "fec,cols:10,rows:5,layout:staircase,arq:onreq");
  EXPECT_EQ(parse_srt_fec("fec,arq:never,rows:-4,cols:8").filter(), "fec,cols:8,rows:-4,arq:never");
  // Unset keys stay unset, so that a listener's partial spec merges with a caller's.
  const SrtFec cols_only = parse_srt_fec("fec,cols:10");
  EXPECT_EQ(cols_only.filter(), "fec,cols:10");
  EXPECT_FALSE(cols_only.rows.has_value());
  EXPECT_EQ(parse_srt_fec("fec,cols:10,rows:5"), parse_srt_fec("10,5"));
}

TEST(SrtFec, OverheadCountsRowAndColumnPackets) {
  EXPECT_DOUBLE_EQ(parse_srt_fec("10,5").overhead(), 1.0 / 10 + 1.0 / 5);
  EXPECT_DOUBLE_EQ(parse_srt_fec("fec,cols:10").overhead(), 1.0 / 10);  // libsrt's rows:1
  EXPECT_DOUBLE_EQ(parse_srt_fec("20,1").overhead(), 1.0 / 20);
  EXPECT_DOUBLE_EQ(parse_srt_fec("10,-5").overhead(), 1.0 / 5);  // no row packets
  EXPECT_DOUBLE_EQ(parse_srt_fec("2,2").overhead(), 1.0);
}

TEST(SrtFec, AMatrixSpansColsTimesRowsPackets) {
  EXPECT_EQ(parse_srt_fec("10,5").matrix_packets(), 50);
  EXPECT_EQ(parse_srt_fec("10,-5").matrix_packets(), 50);
  EXPECT_EQ(parse_srt_fec("fec,cols:10").matrix_packets(), 10);  // a row
  EXPECT_EQ(parse_srt_fec("256,256").matrix_packets(), 65536);
}

struct Hostile {
  std::string spec;
  std::string names;  // what the message must say
};

class SrtFecHostile : public ::testing::TestWithParam<Hostile> {};

TEST_P(SrtFecHostile, IsRefusedWithOneLineNamingWhatToFix) {
  const Hostile& input = GetParam();
  try {
    parse_srt_fec(input.spec);
    FAIL() << "accepted '" << input.spec << "'";
  } catch (const SrtFecError& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find(input.names), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    EXPECT_LT(what.size(), 200u) << what;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Specs, SrtFecHostile,
    ::testing::Values(
        Hostile{"", "empty; give COLS,ROWS[,LAYOUT]"}, Hostile{"10", "has 1 part(s)"},
        Hostile{"10,5,staircase,extra", "has 4 part(s)"},
        Hostile{"0,5", "cols '0' is out of range (2..256)"},
        Hostile{"1,5", "cols '1' is out of range"}, Hostile{"-10,5", "cols '-10' is out of range"},
        Hostile{"257,5", "cols '257' is out of range"},
        Hostile{"99999999999999999999999,5", "cols '99999999999999999999999' is out of range"},
        Hostile{"10,0", "rows '0' is out of range (1: rows only, 2..256, or -256..-2"},
        Hostile{"10,-1", "rows '-1' is out of range"},
        Hostile{"10,-257", "rows '-257' is out of range"},
        Hostile{"10,4294967301", "rows '4294967301' is out of range"},
        Hostile{"10,five", "rows 'five' is not a whole number"},
        Hostile{"10,5.5", "rows '5.5' is not a whole number"},
        Hostile{"10, 5", "rows ' 5' is not a whole number"},
        Hostile{"10,+5", "rows '+5' is not a whole number"},
        Hostile{"10,-", "rows '-' is not a whole number"},
        Hostile{"10,", "rows '' is not a whole number"},
        Hostile{"0x10,5", "cols '0x10' is not a whole number"},
        Hostile{"10,5,diagonal", "layout 'diagonal' is not even or staircase"},
        Hostile{"10,5,", "layout '' is not even or staircase"}, Hostile{"fec", "cols is missing"},
        Hostile{"fec,rows:5", "cols is missing"},
        Hostile{"fec,cols:10,cols:10", "key 'cols' is given twice"},
        Hostile{"fec,cols:10,rows:5,rows:5", "key 'rows' is given twice"},
        Hostile{"fec,cols:10,size:4", "unknown key 'size' (libsrt's fec filter takes cols"},
        Hostile{"fec,cols:10,Rows:5", "unknown key 'Rows'"},
        Hostile{"fec,cols:10,rows", "'rows' is not KEY:VALUE"},
        Hostile{"fec,cols:10,,rows:5", "'' is not KEY:VALUE"},
        Hostile{"fec,cols:ten", "cols 'ten' is not a whole number"},
        Hostile{"fec,cols:10:20", "cols '10:20' is not a whole number"},
        Hostile{"fec,cols:10,arq:sometimes", "arq 'sometimes' is not never, onreq or always"},
        Hostile{"fec,cols:10,layout:Even", "layout 'Even' is not even or staircase"},
        Hostile{"FEC,cols:10", "filter 'FEC' is not libsrt's built-in fec"},
        Hostile{"rs,cols:10", "filter 'rs' is not libsrt's built-in fec"},
        Hostile{"cols:10,rows:5", "'cols:10' comes before the filter type"},
        Hostile{",10,5", "filter '' is not libsrt's built-in fec"},
        Hostile{"garbage", "filter 'garbage' is not libsrt's built-in fec"},
        Hostile{std::string("10,5,\nstaircase"), "layout '\\x0astaircase' is not"},
        Hostile{std::string("fec,cols:10\0,rows:5", 19), "cols '10\\x00' is not a whole number"},
        Hostile{"fec,cols:10,rows:5," + std::string(300, 'x'), "is too long"},
        Hostile{"10,5,staircase" + std::string(60, ' '), "layout 'staircase      "}),
    [](const ::testing::TestParamInfo<Hostile>& param) {
      return "case" + std::to_string(param.index);
    });

}  // namespace
}  // namespace hdstream
