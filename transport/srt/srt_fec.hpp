// --srt-fec: libsrt's built-in FEC packet filter (SRTO_PACKETFILTER), parsed and checked before
// libsrt sees it. Two spellings: the short COLS,ROWS[,LAYOUT] and libsrt's own filter string.
//   parse_srt_fec("10,5,staircase").filter() == "fec,cols:10,rows:5,layout:staircase"
//   parse_srt_fec("fec,cols:10,rows:5,arq:onreq").overhead() == 0.3   // 1/10 + 1/5
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace hdstream {

// What is wrong with a spec, in one line naming the part to fix (without the option's name).
class SrtFecError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Bytes libsrt's fec filter takes from every packet's payload (fec.h EXTRA_SIZE): with the
// filter on, SRTO_PAYLOADSIZE is at most SRT_LIVE_MAX_PLSIZE - 4 = 1452.
inline constexpr int kSrtFecHeaderBytes = 4;
// Largest group hdstream accepts in either dimension (libsrt sets none): a column group spans
// cols x rows packets, which must arrive within the latency for FEC to rebuild anything.
inline constexpr int kSrtFecMaxGroup = 256;

// libsrt's FEC matrix (docs/features/packet-filtering-and-fec.md). Unset values are left to
// the other end or libsrt's defaults (rows 1, layout even, arq onreq), so that a listener's
// partial spec can merge with a caller's.
struct SrtFec {
  int cols = 0;             // row group size, 2..kSrtFecMaxGroup
  std::optional<int> rows;  // 1: row FEC only; 2..max: rows and columns; -max..-2: columns only
  std::optional<std::string> layout;  // even | staircase
  std::optional<std::string> arq;     // never | onreq | always
  bool operator==(const SrtFec&) const = default;

  // The SRTO_PACKETFILTER string: "fec,cols:C" and whichever of rows, layout, arq were given.
  std::string filter() const;
  // FEC packets sent per data packet: 1/cols for the rows (unless columns only) plus 1/|rows|
  // for the columns (when |rows| >= 2).
  double overhead() const;
  // Packets a whole matrix spans: cols x |rows| (cols with rows only). Once this many more
  // have been sent, every group a packet is in has its FEC packet, or has been given up.
  int matrix_packets() const;
};

// Accepts "COLS,ROWS[,LAYOUT]" (e.g. 10,5 or 10,5,staircase) and libsrt's
// "fec,cols:C[,rows:R][,layout:L][,arq:A]" (keys in any order, each once). Throws SrtFecError
// for anything else: empty text, another filter type, unknown or repeated keys, missing cols,
// values that are not whole numbers in range or not among the allowed words.
SrtFec parse_srt_fec(std::string_view text);

}  // namespace hdstream
